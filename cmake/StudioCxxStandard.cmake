# The C++ standard to build with: `minimum`, or the one the libtorch found was built with where that
# is newer. TorchConfig.cmake records it as its imported target's CXX_STANDARD (14 for Debian 12's
# 1.13, 17 for PyTorch 2.1 to 2.11, 20 since 2.12, whose headers refuse anything older), but CMake
# does not pass an imported target's CXX_STANDARD on to the targets that link it.
#
#   studio_cxx_standard_for(<torch target> <minimum> <result variable>)
function(studio_cxx_standard_for torch_target minimum result)
  set(standard ${minimum})
  if(TARGET ${torch_target})
    get_target_property(torch_standard ${torch_target} CXX_STANDARD)
    if(torch_standard MATCHES "^[0-9]+$" AND torch_standard GREATER standard)
      set(standard ${torch_standard})
    endif()
  endif()
  set(${result} ${standard} PARENT_SCOPE)
endfunction()
