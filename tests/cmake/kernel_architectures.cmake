# Run by a CTest test (tests/CMakeLists.txt) with -DSOURCE_DIR, -DBINARY_DIR, -DGENERATOR and
# -DMAKE_PROGRAM (ninja): configures the project with the -gencode flag that a CUDA libtorch's
# CMake appends to CMAKE_CUDA_FLAGS where no GPU is visible, for an architecture the kernels cannot
# be compiled for (sm_75: no cp.async), then reads kernels/' compile commands. They must target
# sm_80 and sm_90 and nothing older. Configures only; nothing is compiled.
execute_process(
  COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${BINARY_DIR}" -G "${GENERATOR}"
          "-DCMAKE_CUDA_FLAGS=-gencode arch=compute_75,code=sm_75" -DCMAKE_BUILD_TYPE=Release
          -DSTUDIO_GUI=OFF -DSTUDIO_TESTS=OFF
  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "configuring with libtorch's -gencode flag failed:\n${output}")
endif()
execute_process(COMMAND "${MAKE_PROGRAM}" -C "${BINARY_DIR}" -t commands studio_kernels
                RESULT_VARIABLE status OUTPUT_VARIABLE commands ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "no commands for studio_kernels: ${errors}")
endif()
string(REGEX MATCHALL "[^\n]*device_info\\.cu[^\n]*" compile "${commands}")
if(compile STREQUAL "")
  message(FATAL_ERROR "no nvcc command for kernels/device_info.cu among:\n${commands}")
endif()
foreach(architecture compute_80 compute_90)
  if(NOT compile MATCHES "arch=${architecture}")
    message(FATAL_ERROR "kernels/ is not compiled for ${architecture}:\n${compile}")
  endif()
endforeach()
if(compile MATCHES "compute_75")
  message(FATAL_ERROR "kernels/ keeps libtorch's -gencode for sm_75, which nvcc cannot compile "
                      "the kernels for:\n${compile}")
endif()
message(STATUS "kernels/ compiles for sm_80 and sm_90 alone")
