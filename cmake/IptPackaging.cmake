# Debian packages with CPack (cpack -G DEB in the build directory), one per install
# component:
#   libipt0      runtime      the shared library
#   libipt-dev   development  headers, the Fortran module, the CMake package, ipt.pc,
#                             the libipt.so link
#   ipt-tools    tools        ipt-demo, ipt-plan, ipt-bench, ipt-kernel-bench
#   python3-ipt  python       the ipt package for pyopencl users (when built)
# Installed under /usr. Dependencies on other packages are computed by dpkg-shlibdeps
# (dpkg-dev) for the binaries and named here for the rest.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME libipt)
set(CPACK_PACKAGE_VENDOR "libipt developers")
set(CPACK_PACKAGE_CONTACT "libipt developers <libipt@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The tools link libipt.so.1 of the libipt0 package (named in their Depends below):
# dpkg-shlibdeps finds it in the build tree.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${PROJECT_BINARY_DIR}/src")

set(CPACK_COMPONENTS_ALL runtime development)
if(IPT_BUILD_TOOLS)
  list(APPEND CPACK_COMPONENTS_ALL tools)
endif()
if(IPT_BUILD_PYTHON)
  list(APPEND CPACK_COMPONENTS_ALL python)
endif()

set(ipt_deb_version "${PROJECT_VERSION}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libipt0)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
    "in-place matrix transposition on OpenCL devices (shared library)\n The libipt shared library: transposes a matrix in place in an OpenCL buffer.")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME libipt-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS
    "libipt0 (= ${ipt_deb_version}), ocl-icd-opencl-dev | opencl-dev, opencl-clhpp-headers")
set(CPACK_DEBIAN_DEVELOPMENT_DESCRIPTION
    "in-place matrix transposition on OpenCL devices (development files)\n Headers for C and C++, the Fortran module, the CMake package and pkg-config file.")
set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME ipt-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "libipt0 (= ${ipt_deb_version})")
set(CPACK_DEBIAN_TOOLS_DESCRIPTION
    "in-place matrix transposition on OpenCL devices (tools)\n ipt-demo, ipt-plan (a plan in words), ipt-bench and ipt-kernel-bench.")
set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-ipt)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS
    "libipt0 (= ${ipt_deb_version}), python3, python3-pyopencl, python3-numpy")
set(CPACK_DEBIAN_PYTHON_DESCRIPTION
    "in-place matrix transposition on OpenCL devices (Python)\n The ipt package: ipt.transpose transposes a pyopencl array in place.")
include(CPack)
