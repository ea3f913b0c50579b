# The default CUDA architectures (cmake/CudaArchitectures.cmake), from the device query's answers:
#   cmake -DSOURCE_DIR=<repo> -P cuda_architectures_test.cmake
include(${SOURCE_DIR}/cmake/CudaArchitectures.cmake)
cmake_minimum_required(VERSION 3.25)

function(expect_list query_result query_output expected)
  zeronorm_cuda_architectures_from_query(got "${query_result}" "${query_output}")
  if(NOT got STREQUAL expected)
    message(FATAL_ERROR "query (${query_result}, '${query_output}'): got '${got}', expected '${expected}'")
  endif()
endfunction()

# No GPU (the query fails, or answers nothing): the portable list, SASS for every architecture
# from sm_75 to sm_90 and PTX for the newest, so that later cards JIT-compile it.
set(portable "75-real;80-real;86-real;89-real;90")
expect_list(1 "" "${portable}")
expect_list(0 "" "${portable}")
expect_list(0 "no device" "${portable}")
expect_list(0 "\n" "${portable}")
foreach(required IN ITEMS 80-real 86-real 89-real 90)
  if(NOT required IN_LIST ZERONORM_PORTABLE_CUDA_ARCHITECTURES)
    message(FATAL_ERROR "the portable list lacks ${required}")
  endif()
endforeach()
# The visible GPUs, by number, sorted and without repeats.
expect_list(0 "90\n" "90")
expect_list(0 "86" "86")
expect_list(0 "89,86" "86;89")
expect_list(0 "90,90" "90")
expect_list(0 "86;120" "86;120")
message(STATUS "cuda_architectures_test: passed")
