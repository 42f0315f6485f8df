# Teaching mode (issue 4): the tour, the formula drill-down, the scale-out ladder, the fixes,
# and their widgets. Included by tests/CMakeLists.txt.

trainmem_core_test(tst_tour)
trainmem_core_test(tst_explain)
trainmem_core_test(tst_ladder)
trainmem_core_test(tst_fixes)

# Widget suites: offscreen, linking the UI library (presets come from its resources).
function(trainmem_teach_ui_test name)
  add_executable(${name} ${name}.cpp testdata.h)
  target_link_libraries(${name} PRIVATE trainmem_ui Qt6::Test trainmem_warnings)
  target_compile_definitions(${name} PRIVATE
    TRAINMEM_PRESETS_DIR="${PROJECT_SOURCE_DIR}/presets"
    TRAINMEM_TEST_OUTPUT_DIR="${CMAKE_CURRENT_BINARY_DIR}")
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen")
endfunction()
trainmem_teach_ui_test(tst_ui_teach_tour)
trainmem_teach_ui_test(tst_ui_teach_drilldown)
trainmem_teach_ui_test(tst_ui_teach_ladder)
trainmem_teach_ui_test(tst_ui_teach_receipt)
trainmem_teach_ui_test(tst_ui_teach_fixes)
