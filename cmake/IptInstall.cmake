# Installation: the versioned library, the headers, the Fortran module, an exported CMake
# package (find_package(ipt) -> ipt::ipt, ipt::ipt_fortran) and a pkg-config file; when
# built, libipt_mpi (ipt::mpi, ipt::mpi_fortran, ipt-mpi.pc) beside them.
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
# From 1.0 on, every release of one major version keeps the ABI (the SONAME carries the major version).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/iptConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/iptConfig.cmake ${PROJECT_BINARY_DIR}/iptConfigVersion.cmake
  DESTINATION ${IPT_INSTALL_CMAKEDIR} COMPONENT development)

# The .pc file finds its prefix relative to itself, so an installed tree can be moved.
string(REGEX REPLACE "[^/]+" ".." IPT_PC_TO_PREFIX "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
configure_file(${CMAKE_CURRENT_LIST_DIR}/ipt.pc.in ${PROJECT_BINARY_DIR}/ipt.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ipt.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
  COMPONENT development)

# libipt_mpi: an export set of its own, which iptConfig.cmake includes only when it is
# installed, after finding MPI. Its own install components (mpi, mpi_development), so that
# libipt's Debian packages, which cpack makes from the other components, neither hold it
# nor depend on MPI.
if(TARGET ipt_mpi)
  set(ipt_mpi_targets ipt_mpi)
  if(TARGET ipt_mpi_fortran)
    list(APPEND ipt_mpi_targets ipt_mpi_fortran)
  endif()
  install(TARGETS ${ipt_mpi_targets} EXPORT iptMpiTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT mpi NAMELINK_COMPONENT mpi_development
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT mpi_development
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT mpi)
  install(FILES ${PROJECT_SOURCE_DIR}/include/ipt/ipt_mpi.h
                ${PROJECT_SOURCE_DIR}/include/ipt/ipt_mpi.hpp
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ipt COMPONENT mpi_development)
  if(TARGET ipt_mpi_fortran)
    install(FILES ${PROJECT_BINARY_DIR}/fortran/mod/ipt_mpi.mod
      DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ipt COMPONENT mpi_development)
  endif()
  install(EXPORT iptMpiTargets NAMESPACE ipt:: DESTINATION ${IPT_INSTALL_CMAKEDIR}
    COMPONENT mpi_development)
  export(EXPORT iptMpiTargets NAMESPACE ipt:: FILE ${PROJECT_BINARY_DIR}/iptMpiTargets.cmake)

  # ipt-mpi.pc requires the MPI implementation's own pkg-config module when one has the
  # mpi.h that CMake found (Debian's mpi-c follows the default MPI, Open MPI installs
  # ompi-c, MPICH mpich); otherwise it carries MPI's flags itself.
  set(IPT_PC_MPI_REQUIRES "")
  set(IPT_PC_MPI_CFLAGS "")
  set(IPT_PC_MPI_LIBS "")
  find_package(PkgConfig QUIET)
  find_path(ipt_mpi_header_dir mpi.h PATHS ${MPI_C_INCLUDE_DIRS} NO_DEFAULT_PATH NO_CACHE)
  if(PKG_CONFIG_FOUND AND ipt_mpi_header_dir)
    file(REAL_PATH "${ipt_mpi_header_dir}" ipt_mpi_header_dir)
    foreach(module mpi-c ompi-c mpich)
      pkg_check_modules(ipt_pc_${module} QUIET ${module})
      foreach(dir IN LISTS ipt_pc_${module}_INCLUDE_DIRS)
        file(REAL_PATH "${dir}" dir)
        if(dir STREQUAL ipt_mpi_header_dir)
          set(IPT_PC_MPI_REQUIRES " ${module}")
        endif()
      endforeach()
      if(IPT_PC_MPI_REQUIRES)
        break()
      endif()
    endforeach()
  endif()
  if(NOT IPT_PC_MPI_REQUIRES)
    foreach(dir IN LISTS MPI_C_INCLUDE_DIRS)
      string(APPEND IPT_PC_MPI_CFLAGS " -I${dir}")
    endforeach()
    foreach(library IN LISTS MPI_C_LIBRARIES)
      string(APPEND IPT_PC_MPI_LIBS " ${library}")
    endforeach()
  endif()
  configure_file(${CMAKE_CURRENT_LIST_DIR}/ipt-mpi.pc.in ${PROJECT_BINARY_DIR}/ipt-mpi.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/ipt-mpi.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
    COMPONENT mpi_development)
else()
  # A build tree reconfigured without MPI must not offer the old targets.
  file(REMOVE ${PROJECT_BINARY_DIR}/iptMpiTargets.cmake)
endif()
