# Checks an installed tree (cmake -P; see packaging_tests.cmake for the arguments): every file is where
# the desktop expects it, the ids agree across the three metadata files, and the binary reports VERSION.
foreach(_v PREFIX BINDIR DATADIR PRESETS VERSION APP_ID)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "check_install.cmake: -D${_v}= is missing")
  endif()
endforeach()
string(REPLACE "|" ";" PRESETS "${PRESETS}")

set(_exe "${PREFIX}/${BINDIR}/trainmem")
set(_desktop "${PREFIX}/${DATADIR}/applications/${APP_ID}.desktop")
set(_metainfo "${PREFIX}/${DATADIR}/metainfo/${APP_ID}.metainfo.xml")
set(_expected "${_exe}" "${_desktop}" "${_metainfo}")
foreach(_p IN LISTS PRESETS)
  list(APPEND _expected "${PREFIX}/${DATADIR}/trainmem/presets/${_p}")
endforeach()

set(_missing "")
foreach(_f IN LISTS _expected)
  if(NOT EXISTS "${_f}")
    list(APPEND _missing "${_f}")
  endif()
endforeach()
if(_missing)
  list(JOIN _missing "\n  " _text)
  message(FATAL_ERROR "not installed:\n  ${_text}")
endif()

# Icon= names a scalable icon that is installed; Exec= names the installed binary.
file(STRINGS "${_desktop}" _icon REGEX "^Icon=")
string(REGEX REPLACE "^Icon=" "" _icon "${_icon}")
set(_svg "${PREFIX}/${DATADIR}/icons/hicolor/scalable/apps/${_icon}.svg")
if(_icon STREQUAL "" OR NOT EXISTS "${_svg}")
  message(FATAL_ERROR "the desktop file's Icon=${_icon} has no icon at ${_svg}")
endif()
file(READ "${_svg}" _svgText LIMIT 4096)
if(NOT _svgText MATCHES "<svg")
  message(FATAL_ERROR "${_svg} is not an SVG image")
endif()
file(STRINGS "${_desktop}" _exec REGEX "^Exec=")
if(NOT _exec MATCHES "^Exec=trainmem( |$)")
  message(FATAL_ERROR "the desktop file runs '${_exec}', not the installed trainmem")
endif()

# The metainfo names this component, launches this desktop file and records this version.
file(READ "${_metainfo}" _meta)
foreach(_needle "<id>${APP_ID}</id>" "<launchable type=\"desktop-id\">${APP_ID}.desktop</launchable>"
                "<release version=\"${VERSION}\"" "<metadata_license>CC0-1.0</metadata_license>")
  string(FIND "${_meta}" "${_needle}" _at)
  if(_at LESS 0)
    message(FATAL_ERROR "${_metainfo} lacks ${_needle}")
  endif()
endforeach()

# The installed binary runs from the prefix and reports the project's version.
execute_process(COMMAND "${_exe}" --version OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0 OR NOT _out MATCHES "^trainmem ${VERSION}\n")
  message(FATAL_ERROR "${_exe} --version exited ${_rc} with '${_out}' (stderr '${_err}'), expected 'trainmem ${VERSION}'")
endif()

# Each preset is a JSON object (the install copied the files, not something else).
foreach(_p IN LISTS PRESETS)
  file(READ "${PREFIX}/${DATADIR}/trainmem/presets/${_p}" _json)
  string(JSON _type ERROR_VARIABLE _jsonErr TYPE "${_json}")
  if(_jsonErr OR NOT _type STREQUAL "OBJECT")
    message(FATAL_ERROR "installed preset ${_p} is not a JSON object: ${_jsonErr}")
  endif()
endforeach()
message(STATUS "installed tree under ${PREFIX} is complete (trainmem ${VERSION}, ${APP_ID})")
