# The CUDA architectures a build carries when the user names none (included before project(),
# because CMAKE_CUDA_ARCHITECTURES must be known before the CUDA language is enabled).
#
# A cubin (SASS) for sm_XY runs on devices sm_XZ with Z >= Y only; PTX for compute_XY is compiled
# by the driver for any device of compute capability >= X.Y. So the default is:
#   - the GPUs visible at configure time (the toolkit's __nvcc_device_query, as `native` does,
#     but recorded by number so that the build can say what it carries), SASS and PTX for each;
#   - otherwise a portable list: SASS for Turing, Ampere (A100, RTX 30xx/A6000), Ada (RTX 40xx)
#     and Hopper, and PTX for Hopper, which the driver compiles for later cards.
# Naming the architectures (-DCMAKE_CUDA_ARCHITECTURES=... or the CUDAARCHS environment
# variable) overrides both.

set(ZERONORM_PORTABLE_CUDA_ARCHITECTURES "75-real;80-real;86-real;89-real;90")

# zeronorm_cuda_architectures_from_query(<out> <exit code> <output>): the default list from the
# device query's exit code and output ("90", "86,89", ...).
function(zeronorm_cuda_architectures_from_query out query_result query_output)
  set(found "")
  if(query_result STREQUAL "0")
    string(REGEX MATCHALL "[0-9][0-9]+" found "${query_output}")
    list(REMOVE_DUPLICATES found)
    list(SORT found COMPARE NATURAL)
  endif()
  if(found)
    set(${out} "${found}" PARENT_SCOPE)
  else()
    set(${out} "${ZERONORM_PORTABLE_CUDA_ARCHITECTURES}" PARENT_SCOPE)
  endif()
endfunction()

# zeronorm_default_cuda_architectures(<out>): runs the device query next to nvcc (the compiler
# CMake would pick: CMAKE_CUDA_COMPILER, $CUDACXX, nvcc on PATH, /usr/local/cuda/bin).
function(zeronorm_default_cuda_architectures out)
  set(nvcc "")
  if(CMAKE_CUDA_COMPILER)
    set(nvcc "${CMAKE_CUDA_COMPILER}")
  elseif(DEFINED ENV{CUDACXX})
    set(nvcc "$ENV{CUDACXX}")
  else()
    find_program(ZERONORM_NVCC_FOR_QUERY nvcc PATHS /usr/local/cuda/bin NO_CACHE)
    set(nvcc "${ZERONORM_NVCC_FOR_QUERY}")
  endif()
  set(result 1)
  set(output "")
  if(nvcc)
    get_filename_component(bindir "${nvcc}" DIRECTORY)
    if(EXISTS "${bindir}/__nvcc_device_query")
      execute_process(COMMAND "${bindir}/__nvcc_device_query" RESULT_VARIABLE result
                      OUTPUT_VARIABLE output ERROR_QUIET TIMEOUT 60)
    endif()
  endif()
  zeronorm_cuda_architectures_from_query(list "${result}" "${output}")
  set(${out} "${list}" PARENT_SCOPE)
endfunction()
