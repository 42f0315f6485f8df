# Teaching mode (issue 4): the tour, the formula drill-down, the scale-out ladder, the fixes,
# and their widgets. Included by tests/CMakeLists.txt.

trainmem_core_test(tst_tour)
trainmem_core_test(tst_explain)
trainmem_core_test(tst_ladder)
trainmem_core_test(tst_fixes)
