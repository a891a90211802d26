// tinyobjloader is a single-header library whose implementation each program compiles once; this
// is hybridsim's copy (double precision: TINYOBJLOADER_USE_DOUBLE is set for the library's
// objects), since Debian ships the library as a shared object only, which the statically linked
// CLI cannot use. models/mesh_reader.cpp is its one caller. Sanitizer builds leave this file
// uninstrumented, as the shared object was (models/CMakeLists.txt): its number parser can overflow
// an int on an exponent of ten digits, and the mesh reader checks the coordinates it uses itself
// (docs/robustness.md).
#define TINYOBJLOADER_IMPLEMENTATION
#include <tiny_obj_loader.h>
