# Installation: the versioned library, the headers, the Fortran module, an exported CMake
# package (find_package(ipt) -> ipt::ipt, ipt::ipt_fortran) and a pkg-config file.
include(CMakePackageConfigHelpers)

set(IPT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/ipt)
set(ipt_targets ipt)
if(IPT_BUILD_FORTRAN)
  list(APPEND ipt_targets ipt_fortran)
endif()

install(TARGETS ${ipt_targets} EXPORT iptTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT development
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/include/ipt/ipt.h ${PROJECT_SOURCE_DIR}/include/ipt/ipt.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ipt COMPONENT development)
if(IPT_BUILD_FORTRAN)
  install(FILES ${PROJECT_BINARY_DIR}/fortran/mod/ipt.mod
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ipt COMPONENT development)
endif()

install(EXPORT iptTargets NAMESPACE ipt:: DESTINATION ${IPT_INSTALL_CMAKEDIR}
  COMPONENT development)
export(EXPORT iptTargets NAMESPACE ipt:: FILE ${PROJECT_BINARY_DIR}/iptTargets.cmake)

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/iptConfig.cmake.in
  ${PROJECT_BINARY_DIR}/iptConfig.cmake INSTALL_DESTINATION ${IPT_INSTALL_CMAKEDIR})
# Before 1.0 every minor version may change the ABI (the SONAME carries it too).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/iptConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/iptConfig.cmake ${PROJECT_BINARY_DIR}/iptConfigVersion.cmake
  DESTINATION ${IPT_INSTALL_CMAKEDIR} COMPONENT development)

# The .pc file finds its prefix relative to itself, so an installed tree can be moved.
string(REGEX REPLACE "[^/]+" ".." IPT_PC_TO_PREFIX "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
configure_file(${CMAKE_CURRENT_LIST_DIR}/ipt.pc.in ${PROJECT_BINARY_DIR}/ipt.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ipt.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
  COMPONENT development)
