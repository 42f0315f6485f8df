# UI suites (issue 3): widgets and charts on the offscreen platform. Included by tests/CMakeLists.txt.

foreach(_t tst_ui_controls tst_ui_charts tst_ui_export tst_ui_mainwindow tst_ui_monkey tst_ui_live tst_ui_peers
           tst_ui_hfimport tst_ui_teachingdocks tst_ui_slides tst_ui_ranks tst_ui_fitmap tst_ui_timeline)
  add_executable(${_t} ${_t}.cpp uitestutil.h)
  target_link_libraries(${_t} PRIVATE trainmem_ui Qt6::Test trainmem_warnings)
  add_test(NAME ${_t} COMMAND ${_t})
  set_tests_properties(${_t} PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen")
endforeach()
target_compile_definitions(tst_ui_slides PRIVATE TRAINMEM_SLIDES_SCREENS="${CMAKE_CURRENT_SOURCE_DIR}/data/offscreen-screens.json")
target_compile_definitions(tst_ui_hfimport PRIVATE TRAINMEM_HF_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data/hf")

# Packaging tests live in their own file; included here so they run before tests/CMakeLists.txt names it.
include(packaging_tests.cmake)
