# Installation: the shared library, the CLI, the public headers, the catalog scenes, a CMake
# package (find_package(hybridsim) -> hybridsim::hybridsim) and a pkg-config file (hybridsim.pc).
include(CMakePackageConfigHelpers)

set(HYBRIDSIM_INSTALL_INCLUDE ${CMAKE_INSTALL_INCLUDEDIR}/hybridsim)
set(HYBRIDSIM_INSTALL_CMAKE ${CMAKE_INSTALL_LIBDIR}/cmake/hybridsim)


install(TARGETS hybridsim_lib EXPORT hybridsimTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${HYBRIDSIM_INSTALL_INCLUDE})
install(TARGETS hybridsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Public headers: the API's own and the headers of the lower layers that it includes.
install(FILES ${HYBRIDSIM_PUBLIC_API_HEADERS}
  ${CMAKE_CURRENT_BINARY_DIR}/generated/include/hybridsim/version.h
  DESTINATION ${HYBRIDSIM_INSTALL_INCLUDE}/hybridsim)
install(FILES ${HYBRIDSIM_PUBLIC_CORE_HEADERS} DESTINATION ${HYBRIDSIM_INSTALL_INCLUDE}/core)
install(FILES ${HYBRIDSIM_PUBLIC_INTEGRATOR_HEADERS}
  DESTINATION ${HYBRIDSIM_INSTALL_INCLUDE}/integrators)
install(FILES ${HYBRIDSIM_PUBLIC_MODEL_HEADERS} DESTINATION ${HYBRIDSIM_INSTALL_INCLUDE}/models)
install(PROGRAMS tools/plot_batch.py tools/plot_run.py DESTINATION ${CMAKE_INSTALL_DATADIR}/hybridsim)
install(DIRECTORY models/scenes/ DESTINATION ${CMAKE_INSTALL_DATADIR}/hybridsim/scenes
  FILES_MATCHING PATTERN "*.yaml" PATTERN "*.obj" PATTERN "*.pgm")

install(EXPORT hybridsimTargets NAMESPACE hybridsim:: DESTINATION ${HYBRIDSIM_INSTALL_CMAKE})
configure_package_config_file(tools/cmake/hybridsimConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/hybridsimConfig.cmake
  INSTALL_DESTINATION ${HYBRIDSIM_INSTALL_CMAKE})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/hybridsimConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)  # before 1.0 the ABI changes with the minor version
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/hybridsimConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/hybridsimConfigVersion.cmake
  DESTINATION ${HYBRIDSIM_INSTALL_CMAKE})

# The .pc file finds its prefix from its own place (${pcfiledir}), so an installed tree can move.
string(REGEX MATCHALL "[^/]+" HYBRIDSIM_PC_DEPTH "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
set(HYBRIDSIM_PC_PREFIX "\${pcfiledir}")
foreach(component IN LISTS HYBRIDSIM_PC_DEPTH)
  string(APPEND HYBRIDSIM_PC_PREFIX "/..")
endforeach()
configure_file(tools/cmake/hybridsim.pc.in ${CMAKE_CURRENT_BINARY_DIR}/hybridsim.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hybridsim.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
