# Packaging (issue 5): `cmake --install` into a scratch prefix, then the installed tree is checked.
# Included from tests/CMakeLists.txt.
include_guard(GLOBAL)

set(_prefix "${CMAKE_BINARY_DIR}/install-test")
add_test(NAME packaging_clean COMMAND ${CMAKE_COMMAND} -E rm -rf "${_prefix}")
add_test(NAME packaging_install COMMAND ${CMAKE_COMMAND} --install "${CMAKE_BINARY_DIR}" --prefix "${_prefix}")
set_tests_properties(packaging_clean PROPERTIES FIXTURES_SETUP packaging_clean)
set_tests_properties(packaging_install PROPERTIES FIXTURES_REQUIRED packaging_clean FIXTURES_SETUP packaging_installed)

# Lists cannot cross add_test's argument splitting: pass the preset names joined with '|'.
string(JOIN "|" _presets ${TRAINMEM_PRESET_FILES})
add_test(NAME packaging_installed_files
         COMMAND ${CMAKE_COMMAND} -DPREFIX=${_prefix} -DBINDIR=${CMAKE_INSTALL_BINDIR}
                 -DDATADIR=${CMAKE_INSTALL_DATADIR} -DPRESETS=${_presets} -DVERSION=${PROJECT_VERSION}
                 -DAPP_ID=org.trainmem.TrainMem -P "${CMAKE_CURRENT_SOURCE_DIR}/check_install.cmake")
set_tests_properties(packaging_installed_files PROPERTIES FIXTURES_REQUIRED packaging_installed
                     ENVIRONMENT "QT_QPA_PLATFORM=offscreen")

# The installed metadata passes the freedesktop validators, where they are installed
# (Debian: desktop-file-utils, appstream).
find_program(DESKTOP_FILE_VALIDATE desktop-file-validate)
if(DESKTOP_FILE_VALIDATE)
  add_test(NAME packaging_desktop_file_valid COMMAND ${DESKTOP_FILE_VALIDATE}
           "${_prefix}/${CMAKE_INSTALL_DATADIR}/applications/org.trainmem.TrainMem.desktop")
  set_tests_properties(packaging_desktop_file_valid PROPERTIES FIXTURES_REQUIRED packaging_installed)
endif()
find_program(APPSTREAMCLI appstreamcli)
if(APPSTREAMCLI)
  add_test(NAME packaging_metainfo_valid COMMAND ${APPSTREAMCLI} validate --no-net
           "${_prefix}/${CMAKE_INSTALL_DATADIR}/metainfo/org.trainmem.TrainMem.metainfo.xml")
  set_tests_properties(packaging_metainfo_valid PROPERTIES FIXTURES_REQUIRED packaging_installed)
endif()
