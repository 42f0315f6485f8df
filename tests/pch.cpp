// The carrier of a precompiled header the suites share (tests/CMakeLists.txt): CMake needs one file
// to build a target, and this target is built only for its header.
