# SPDX-License-Identifier: Apache-2.0
# Installation: the versioned library, the headers, an exported CMake package
# (find_package(ipt) -> ipt::ipt, and ipt::ipt_fortran when built) and a pkg-config file;
# when built, libipt_mpi (ipt::mpi, ipt::mpi_fortran, ipt-mpi.pc) beside them.
# Install components, one per Debian package (cmake/IptPackaging.cmake):
#   runtime, development                 libipt and its development files
#   fortran, fortran_development         libipt_fortran and the module ipt
#   mpi, mpi_fortran, mpi_development    libipt_mpi, libipt_mpi_fortran and theirs
# so that a C program's packages need neither the Fortran runtime nor MPI.
include(CMakePackageConfigHelpers)

set(IPT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/ipt)

install(TARGETS ipt EXPORT iptTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT development
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/include/ipt/ipt.h ${PROJECT_SOURCE_DIR}/include/ipt/ipt.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ipt COMPONENT development)
install(EXPORT iptTargets NAMESPACE ipt:: DESTINATION ${IPT_INSTALL_CMAKEDIR}
  COMPONENT development)
export(EXPORT iptTargets NAMESPACE ipt:: FILE ${PROJECT_BINARY_DIR}/iptTargets.cmake)

# libipt_fortran: an export set of its own, which iptConfig.cmake includes when it is
# installed (the Fortran development package holds it).
if(IPT_BUILD_FORTRAN)
  install(TARGETS ipt_fortran EXPORT iptFortranTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT fortran
            NAMELINK_COMPONENT fortran_development
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT fortran_development
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT fortran)
  install(FILES ${PROJECT_BINARY_DIR}/fortran/mod/ipt.mod
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ipt COMPONENT fortran_development)
  install(EXPORT iptFortranTargets NAMESPACE ipt:: DESTINATION ${IPT_INSTALL_CMAKEDIR}
    COMPONENT fortran_development)
  export(EXPORT iptFortranTargets NAMESPACE ipt::
    FILE ${PROJECT_BINARY_DIR}/iptFortranTargets.cmake)
else()
  file(REMOVE ${PROJECT_BINARY_DIR}/iptFortranTargets.cmake)
endif()

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/iptConfig.cmake.in
  ${PROJECT_BINARY_DIR}/iptConfig.cmake INSTALL_DESTINATION ${IPT_INSTALL_CMAKEDIR})
# From 1.0 on, every release of one major version keeps the ABI (the SONAME carries the major version).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/iptConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/iptConfig.cmake ${PROJECT_BINARY_DIR}/iptConfigVersion.cmake
  DESTINATION ${IPT_INSTALL_CMAKEDIR} COMPONENT development)

# The .pc files name the prefix of the installation as given when installing (cmake
# --install --prefix, cpack's /usr), so that pkg-config prints plain paths, which it
# leaves out for the system directories (no -I/usr/include). They are configured twice:
# here, all but the prefix; when installing, the prefix.
function(ipt_install_pc name component)
  set(IPT_PC_PREFIX "@IPT_PC_PREFIX@")
  configure_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${name}.pc.in
                 ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc.in @ONLY)
  install(CODE "set(IPT_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
configure_file(\"${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc.in\"
               \"${PROJECT_BINARY_DIR}/pkgconfig/install/${name}.pc\" @ONLY)"
          COMPONENT ${component})
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/install/${name}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT ${component})
endfunction()
ipt_install_pc(ipt development)
# libipt_mpi: an export set of its own, which iptConfig.cmake includes only when it is
# installed, after finding MPI.
if(TARGET ipt_mpi)
  install(TARGETS ipt_mpi EXPORT iptMpiTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT mpi NAMELINK_COMPONENT mpi_development
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT mpi_development
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT mpi)
  if(TARGET ipt_mpi_fortran)
    install(TARGETS ipt_mpi_fortran EXPORT iptMpiTargets
      LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT mpi_fortran
              NAMELINK_COMPONENT mpi_development
      ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT mpi_development
      RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT mpi_fortran)
  endif()
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
  ipt_install_pc(ipt-mpi mpi_development)
else()
  # A build tree reconfigured without MPI must not offer the old targets.
  file(REMOVE ${PROJECT_BINARY_DIR}/iptMpiTargets.cmake)
endif()
