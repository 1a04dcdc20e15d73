# Options for Keel's test executables: keel_test_options(<target>).
#
# Test code is compiled without optimisation. Under ASan a test file builds about five times
# faster at -O0 than at -O2 (cmd_hash_test.cc: 63 s -> 12 s), and the tests are most of CI's
# build; what they exercise is the engine, the simulator and the fixtures, libraries that keep
# the build type's optimisation.
function(keel_test_options target)
  target_compile_options(${target} PRIVATE -O0)
endfunction()
