# Makes kernelevo_optimize() available to a project that adds this one with
# add_subdirectory or FetchContent, and installs the find_package(kernelevo CONFIG) package.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
include(${CMAKE_CURRENT_LIST_DIR}/KernelEvo.cmake)
if(NOT KERNELEVO_INSTALL)
  return()
endif()

set(KERNELEVO_INSTALL_BINDIR ${CMAKE_INSTALL_BINDIR})
set(KERNELEVO_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/kernelevo)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/kernelevoConfig.cmake.in
  ${PROJECT_BINARY_DIR}/kernelevoConfig.cmake
  INSTALL_DESTINATION ${KERNELEVO_INSTALL_CMAKEDIR}
  PATH_VARS KERNELEVO_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kernelevoConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/kernelevoConfig.cmake
              ${PROJECT_BINARY_DIR}/kernelevoConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/KernelEvo.cmake
        DESTINATION ${KERNELEVO_INSTALL_CMAKEDIR})
