# Warnings for Keel's own targets (not for third-party headers): keel_warnings(<target>).
function(keel_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wnon-virtual-dtor
    -Wcast-align -Wunused -Woverloaded-virtual -Wnull-dereference -Wimplicit-fallthrough)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wshadow=local)
  else()
    target_compile_options(${target} PRIVATE -Wshadow-uncaptured-local)
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 reports -Wrestrict falsely on std::string appends at -O2/-O3 (GCC bug 105651).
    target_compile_options(${target} PRIVATE -Wno-restrict)
    # GCC 12 at -O3 (the release preset) reports -Wnull-dereference inside libstdc++'s own
    # vector growth and string copies wherever they are inlined (aof_manifest.cc,
    # replication.cc, ...), which broke the README's build command. The ASan and clang builds
    # that CI runs keep the warning.
    if(CMAKE_BUILD_TYPE STREQUAL "Release")
      target_compile_options(${target} PRIVATE -Wno-null-dereference)
    endif()
  endif()
  if(KEEL_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
