#include "models/scene_loader.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>
#include <unordered_set>

#include <fmt/format.h>
#include <Eigen/Eigenvalues>

#include "collision/convex_hull.hpp"
#include "collision/shape_geometry.hpp"
#include "collision/terrain_contact.hpp"
#include "collision/triangle_surface.hpp"
#include "core/errors.hpp"
#include "integrators/integrator.hpp"
#include "models/bilateral_reader.hpp"
#include "models/contact_material_reader.hpp"
#include "models/heightmap_reader.hpp"
#include "models/input_file.hpp"
#include "models/joint_reader.hpp"
#include "models/mass_properties.hpp"
#include "models/mesh_reader.hpp"
#include "models/optional_module.hpp"
#include "models/palette.hpp"
#include "models/scene_import.hpp"
#include "models/signal_reader.hpp"
#include "models/wheel_reader.hpp"
#include "models/yaml_reader.hpp"

namespace hybridsim {

namespace {

// A list of exactly N finite numbers under `key`, described as `form` in the error.
template <std::size_t N>
std::array<double, N> read_numbers(MapReader& reader, const std::string& key, const char* form) {
  const YAML::Node value = reader.get(key);
  const std::string path = reader.path_of(key);
  if (!value.IsSequence() || value.size() != N) {
    throw_yaml_error(reader.source(), value, path,
                     fmt::format("must be a list of {} numbers {}", N, form));
  }
  std::array<double, N> numbers{};
  for (std::size_t i = 0; i < N; ++i) {
    numbers[i] = read_yaml_number(reader.source(), value[i], path);
  }
  return numbers;
}

// Orientation: {rpy: [roll, pitch, yaw]} (R = Rz(yaw) Ry(pitch) Rx(roll)), {quaternion: [w, x,
// y, z]} (normalised) or {axis_angle: [ax, ay, az, angle]}.
Quat read_orientation(MapReader& parent, const std::string& key) {
  if (!parent.has(key)) {
    parent.get(key);
    return Quat::Identity();
  }
  MapReader reader(parent.get(key), parent.path_of(key), parent.source());
  int given = 0;
  Quat q = Quat::Identity();
  if (reader.has("rpy")) {
    ++given;
    const Vec3 rpy = reader.vec3("rpy", Vec3::Zero());
    q = Eigen::AngleAxisd(rpy.z(), Vec3::UnitZ()) * Eigen::AngleAxisd(rpy.y(), Vec3::UnitY()) *
        Eigen::AngleAxisd(rpy.x(), Vec3::UnitX());
  }
  if (reader.has("quaternion")) {
    ++given;
    const auto wxyz = read_numbers<4>(reader, "quaternion", "[w, x, y, z]");
    q = quaternion_from_wxyz(wxyz.data());
    if (!(q.norm() > 1e-12)) reader.fail("quaternion", "must not be zero");
    q.normalize();
  }
  if (reader.has("axis_angle")) {
    ++given;
    const auto v = read_numbers<4>(reader, "axis_angle", "[ax, ay, az, angle]");
    const Vec3 axis(v[0], v[1], v[2]);
    if (!(axis.norm() > 1e-12)) reader.fail("axis_angle", "zero axis");
    q = Eigen::AngleAxisd(v[3], axis.normalized());
  }
  if (given != 1) reader.fail("rpy", "give exactly one of rpy, quaternion, axis_angle");
  reader.reject_unknown_keys();
  return q;
}

// A collision group or mask: an integer in [0, 2^32 - 1], each set bit a category.
std::uint32_t read_bit_set(MapReader& reader, const std::string& key, std::uint32_t fallback) {
  if (!reader.has(key)) return fallback;
  const double value = reader.number(key, 0.0);
  if (!(value >= 0.0 && value <= 4294967295.0) || value != std::floor(value)) {
    reader.fail(key, "must be an integer bit set in [0, 4294967295]");
  }
  return static_cast<std::uint32_t>(value);
}

// Rounds the edges of a box, cylinder or cone. Capped, as Modia3D caps it, at 10% of the shape's
// smallest width, which keeps the faces and the core well formed.
void read_smoothing_radius(MapReader& reader, Shape& shape) {
  if (shape.type != ShapeType::box && shape.type != ShapeType::cylinder &&
      shape.type != ShapeType::cone) {
    reader.fail("smoothing_radius",
                "applies to box, cylinder and cone only (this shape has no edges)");
  }
  const double radius = reader.non_negative("smoothing_radius", 0.0);
  const double limit = 0.1 * compute_shape_thickness(shape);
  if (radius > limit) {
    reader.fail("smoothing_radius",
                fmt::format("exceeds 10% of the shape's smallest width ({:.6g} m)", limit));
  }
  shape.smoothing_radius = radius;
}

// A convex hull: of `vertices` (a list of points in the shape frame, m) or of the points of a
// `mesh` file (OBJ, relative to the scene file), each scaled by `scale` (default 1). Returns
// where the hull's centroid sits in the frame the points were given in.
Vec3 read_convex_hull(MapReader& reader, Shape& shape) {
  shape.type = ShapeType::convex;
  if (reader.has("vertices") == reader.has("mesh")) {
    reader.fail(reader.has("mesh") ? "mesh" : "vertices",
                "a convex shape needs exactly one of 'vertices' and 'mesh'");
  }
  const double scale = reader.positive("scale", 1.0);
  std::vector<Vec3> points;
  const std::string key = reader.has("vertices") ? "vertices" : "mesh";
  if (key == "vertices") {
    const YAML::Node list = reader.sequence("vertices");
    for (std::size_t i = 0; i < list.size(); ++i) {
      points.push_back(scale *
                       read_yaml_vec3(reader.source(), list[i],
                                      fmt::format("{}[{}]", reader.path_of("vertices"), i)));
    }
  } else {
    const std::string file = reader.required_string("mesh");
    const std::filesystem::path scene_dir =
        std::filesystem::path(reader.source().file).parent_path();
    const std::filesystem::path mesh_path =
        std::filesystem::path(file).is_absolute() ? std::filesystem::path(file) : scene_dir / file;
    try {
      for (const Vec3& p : read_mesh_vertices(mesh_path.string())) points.push_back(scale * p);
    } catch (const InputError& error) {
      reader.fail("mesh", error.what());
    }
  }
  try {
    BuiltConvexHull built = build_convex_hull(points);
    shape.hull = std::make_shared<const ConvexHull>(std::move(built.hull));
    // Polyhedral faces are flat (the curved partner's r); alone, half the smallest width.
    shape.contact_sphere_radius = 0.5 * shape.hull->thickness;
    shape.flat = true;
    return built.centroid_input;
  } catch (const std::exception& error) {  // refused points, or a qhull failure
    reader.fail(key, error.what());
  }
}

// A mesh on a moving body: a closed one must face outwards (it gives the body its volume); on a
// free body that collides, its vertices' hull, in S, is what meets a half-space (a plane touches a
// solid only at its hull; prescribed bodies meet free bodies only).
void prepare_moving_mesh(MapReader& reader, Shape& shape, bool needs_hull) {
  const TriangleSurface& surface = *shape.surface;
  const std::string key = reader.has("mesh") ? "mesh" : "vertices";
  if (surface.is_closed() && !(compute_shape_volume(shape) > 0.0)) {
    reader.fail(key,
                "the closed mesh's triangles face inwards (its volume is negative): list each "
                "counter-clockwise seen from outside");
  }
  if (!needs_hull) return;
  try {
    BuiltConvexHull built = build_convex_hull(surface.vertices_S);
    ConvexHull& hull = built.hull;
    hull.bounding_radius = 0.0;
    for (Vec3& v : hull.vertices_S) {
      v += built.centroid_input;  // back in S: the mesh's frame, not the hull's centroid
      hull.bounding_radius = std::max(hull.bounding_radius, v.norm());
    }
    shape.hull = std::make_shared<const ConvexHull>(std::move(hull));
  } catch (const std::exception& error) {  // a flat mesh, or a qhull failure
    reader.fail(key, fmt::format("a mesh on a moving body needs a solid hull: {}", error.what()));
  }
}

// The path of a file a scene names, relative to the scene file.
std::string scene_relative_path(MapReader& reader, const std::string& file) {
  const std::filesystem::path scene_dir = std::filesystem::path(reader.source().file).parent_path();
  const std::filesystem::path path(file);
  return (path.is_absolute() ? path : scene_dir / path).string();
}

// A triangle mesh: an OBJ `mesh` file, or inline `vertices` and `triangles` (vertex indices,
// counter-clockwise seen from outside), each point scaled by `scale`.
void read_triangle_mesh(MapReader& reader, Shape& shape, Model& model) {
  shape.type = ShapeType::mesh;
  if (reader.has("mesh") == reader.has("vertices")) {
    reader.fail(reader.has("mesh") ? "mesh" : "vertices",
                "a mesh needs either 'mesh' (an OBJ file) or 'vertices' with 'triangles'");
  }
  const double scale = reader.positive("scale", 1.0);
  const std::string key = reader.has("mesh") ? "mesh" : "vertices";
  MeshTriangles mesh;
  try {
    if (key == "mesh") {
      mesh = read_mesh_triangles(scene_relative_path(reader, reader.required_string("mesh")));
    } else {
      const YAML::Node points = reader.sequence("vertices");
      for (std::size_t i = 0; i < points.size(); ++i) {
        mesh.vertices.push_back(read_yaml_vec3(
            reader.source(), points[i], fmt::format("{}[{}]", reader.path_of("vertices"), i)));
      }
      const YAML::Node triangles = reader.sequence("triangles");
      for (std::size_t i = 0; i < triangles.size(); ++i) {
        const std::string path = fmt::format("{}[{}]", reader.path_of("triangles"), i);
        const Vec3 corners = read_yaml_vec3(reader.source(), triangles[i], path);
        if (corners != corners.array().round().matrix()) {
          throw_yaml_error(reader.source(), triangles[i], path, "vertex indices are integers");
        }
        mesh.triangles.push_back({static_cast<int>(corners.x()), static_cast<int>(corners.y()),
                                  static_cast<int>(corners.z())});
      }
    }
    for (Vec3& p : mesh.vertices) p *= scale;
    TriangleSurface surface = build_mesh_surface(std::move(mesh.vertices), mesh.triangles);
    if (surface.skipped_triangles > 0) {
      model.warnings.push_back(
          {"degenerate_mesh",
           fmt::format("{}: key '{}': {} degenerate triangles skipped", reader.source().file,
                       reader.path_of(key), surface.skipped_triangles)});
    }
    shape.surface = std::make_shared<const TriangleSurface>(std::move(surface));
  } catch (const InputError& error) {
    reader.fail(key, error.what());
  }
}

// A heightmap: an `image` (PGM, PNG; size [x, y, z], gray 0..max to heights 0..z, the image's top
// row at +y) or heights in metres, inline (`grid`, row 0 at -y) or from a `csv` file, with
// size [x, y].
void read_heightmap(MapReader& reader, Shape& shape) {
  shape.type = ShapeType::heightmap;
  const int given = static_cast<int>(reader.has("image")) + static_cast<int>(reader.has("grid")) +
                    static_cast<int>(reader.has("csv"));
  if (given != 1) reader.fail("image", "a heightmap needs exactly one of image, grid and csv");
  const std::string key = reader.has("image") ? "image" : reader.has("grid") ? "grid" : "csv";
  const YAML::Node size_node = reader.get("size");
  if (!size_node || !size_node.IsSequence() || size_node.size() != (key == "image" ? 3u : 2u)) {
    reader.fail("size", key == "image" ? "an image needs size [x, y, z] (m)"
                                       : "a grid needs size [x, y] (m)");
  }
  std::vector<double> size;
  for (std::size_t i = 0; i < size_node.size(); ++i) {
    size.push_back(
        read_yaml_number(reader.source(), size_node[i], indexed(reader.path_of("size"), i)));
    if (!(size.back() > 0.0) && !(i == 2 && size.back() == 0.0)) {
      reader.fail("size", "extents must be positive (the height range non-negative)");
    }
  }
  std::vector<std::vector<double>> heights;
  try {
    if (key == "image") {
      heights = read_gray_image(scene_relative_path(reader, reader.required_string("image")));
      std::reverse(heights.begin(), heights.end());  // the top row lies at +y
      for (auto& row : heights) {
        for (double& level : row) level *= size[2];
      }
    } else if (key == "csv") {
      heights = read_height_csv(scene_relative_path(reader, reader.required_string("csv")));
    } else {
      const YAML::Node rows = reader.sequence("grid");
      for (std::size_t r = 0; r < rows.size(); ++r) {
        auto& row = heights.emplace_back();
        if (!rows[r].IsSequence()) {
          throw_yaml_error(reader.source(), rows[r], indexed(reader.path_of("grid"), r),
                           "a grid row is a list of heights");
        }
        for (std::size_t c = 0; c < rows[r].size(); ++c) {
          row.push_back(read_yaml_number(reader.source(), rows[r][c],
                                         fmt::format("{}[{}][{}]", reader.path_of("grid"), r, c)));
        }
      }
    }
    shape.surface =
        std::make_shared<const TriangleSurface>(build_heightmap_surface(heights, size[0], size[1]));
  } catch (const InputError& error) {
    reader.fail(key, error.what());
  }
}

void read_shape(MapReader& reader, Shape& shape, Model& model) {
  Vec3 hull_centroid_offset = Vec3::Zero();
  const std::string type = reader.choice("type", "",
                                         {"sphere", "box", "halfspace", "capsule", "cylinder",
                                          "cone", "ellipsoid", "convex", "mesh", "heightmap"});
  if (type == "sphere") {
    shape.type = ShapeType::sphere;
    shape.radius = reader.required_positive("radius");
    shape.contact_sphere_radius = shape.radius;
  } else if (type == "box") {
    shape.type = ShapeType::box;
    const Vec3 size = reader.required_vec3("size");
    if (!(size.minCoeff() > 0.0)) {
      throw_yaml_error(reader.source(), reader.get("size"), reader.path_of("size"),
                       "every edge length must be positive");
    }
    shape.half_extents = 0.5 * size;
    shape.contact_sphere_radius = shape.half_extents.minCoeff();
    shape.flat = true;
  } else if (type == "capsule") {
    shape.type = ShapeType::capsule;
    shape.radius = reader.required_positive("radius");
    shape.length = reader.required_positive("length");
    shape.contact_sphere_radius = shape.radius;
  } else if (type == "cylinder") {
    shape.type = ShapeType::cylinder;
    shape.radius = reader.required_positive("radius");
    shape.length = reader.required_positive("length");
    shape.contact_sphere_radius = 0.5 * std::min(2.0 * shape.radius, shape.length);
  } else if (type == "cone") {
    shape.type = ShapeType::cone;
    shape.radius = reader.required_positive("radius");
    shape.length = reader.required_positive("length");
    shape.top_radius = reader.non_negative("top_radius", 0.0);
    // design.md §5: (d_base + d_top) / 4.
    shape.contact_sphere_radius = 0.5 * (shape.radius + shape.top_radius);
  } else if (type == "ellipsoid") {
    shape.type = ShapeType::ellipsoid;
    shape.radii = reader.required_vec3("radii");
    if (!(shape.radii.minCoeff() > 0.0)) {
      throw_yaml_error(reader.source(), reader.get("radii"), reader.path_of("radii"),
                       "every semi-axis must be positive");
    }
    shape.contact_sphere_radius = shape.radii.minCoeff();
  } else if (type == "convex") {
    hull_centroid_offset = read_convex_hull(reader, shape);
  } else if (type == "mesh" || type == "heightmap") {
    if (type == "mesh") {
      read_triangle_mesh(reader, shape, model);
    } else {
      read_heightmap(reader, shape);
    }
    shape.contact_sphere_radius = kInfinity;  // flat faces: the ball's radius
    shape.flat = true;
  } else if (type == "halfspace") {
    shape.type = ShapeType::halfspace;
    const Vec3 normal = reader.vec3("normal", Vec3::UnitZ());
    if (!(normal.norm() > 1e-12)) reader.fail("normal", "must not be zero");
    shape.normal_S = normal.normalized();
    shape.offset = reader.number("offset", 0.0);
    shape.contact_sphere_radius = kInfinity;
    shape.flat = true;
  }
  shape.X_BS.translation = reader.vec3("position", Vec3::Zero());
  shape.X_BS.rotation = read_orientation(reader, "orientation").toRotationMatrix();
  // A hull is centred on its centroid: its frame S moves there, the geometry stays in place.
  shape.X_BS.translation += shape.X_BS.rotation * hull_centroid_offset;

  const std::string material = reader.required_string("material");
  shape.material = model.find_material(material);
  if (shape.material < 0) reader.fail("material", "unknown material");
  const std::string contact_material = reader.string("contact_material", material);
  shape.contact_material = model.find_material(contact_material);
  if (shape.contact_material < 0) reader.fail("contact_material", "unknown material");
  shape.collision = reader.boolean("collision", true);
  if (reader.has("contact_sphere_radius")) {
    shape.contact_sphere_radius = reader.positive("contact_sphere_radius", 1.0);
  }
  if (reader.has("hunt_crossley_stiffness")) {
    shape.hunt_crossley_stiffness = reader.positive("hunt_crossley_stiffness", 1.0);
  }
  if (reader.has("hunt_crossley_dissipation")) {
    shape.hunt_crossley_dissipation = reader.non_negative("hunt_crossley_dissipation", 0.0);
  }
  shape.plowable = reader.boolean("plowable", false);
  if (reader.has("fdir1")) {
    shape.fdir1_B = reader.vec3("fdir1", Vec3::Zero());
    if (!(shape.fdir1_B.norm() > 0.0)) reader.fail("fdir1", "must not be zero");
    shape.fdir1_B.normalize();
  }
  shape.collision_group = read_bit_set(reader, "group", shape.collision_group);
  shape.collision_mask = read_bit_set(reader, "mask", shape.collision_mask);
  if (reader.has("smoothing_radius")) read_smoothing_radius(reader, shape);
}

void read_body_mass_properties(MapReader& reader, Body& body, std::span<const Shape> shapes,
                               const Model& model) {
  const MassProperties from_shapes = compute_mass_properties(model, shapes);
  if (reader.has("mass")) {
    body.mass = reader.positive("mass", 1.0);
    // A milligram to a million tonnes: beyond, forces and accelerations leave the doubles' useful
    // range against the contact stiffnesses.
    if (!(body.mass >= 1e-6 && body.mass <= 1e9)) reader.fail("mass", "must lie in [1e-6, 1e9] kg");
  } else if (from_shapes.mass > 0.0) {
    body.mass = from_shapes.mass;
  } else {
    reader.fail("mass", "is required for a body whose shapes have no volume");
  }
  body.p_BCom_B = reader.vec3("center_of_mass", from_shapes.p_BCom_B);
  if (reader.has("inertia")) {
    const auto I = read_numbers<6>(reader, "inertia", "[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]");
    body.inertia_com_B << I[0], I[3], I[4], I[3], I[1], I[5], I[4], I[5], I[2];
    Eigen::SelfAdjointEigenSolver<Mat3> eigen(body.inertia_com_B);
    if (!(eigen.eigenvalues().minCoeff() > 0.0))
      reader.fail("inertia", "must be positive definite");
    // A rigid body's principal moments obey the triangle inequality (each at most the sum of the
    // others, equal for a flat body); 1e-9 relative allows the rounding of given numbers.
    const Vec3 principal = eigen.eigenvalues();
    for (int i = 0; i < 3; ++i) {
      if (principal[i] > (principal.sum() - principal[i]) * (1.0 + 1e-9)) {
        reader.fail("inertia",
                    fmt::format("principal moments {:.6g}, {:.6g}, {:.6g}: one exceeds the sum "
                                "of the other two, which no mass distribution gives",
                                principal[0], principal[1], principal[2]));
      }
    }
  } else if (from_shapes.mass > 0.0) {
    // Scaled to the body's mass, then moved (parallel axes) to a centre of mass given apart.
    const Vec3 d = body.p_BCom_B - from_shapes.p_BCom_B;
    body.inertia_com_B = from_shapes.inertia_com_B * (body.mass / from_shapes.mass) +
                         body.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
  } else {
    reader.fail("inertia", "is required for a body whose shapes have no volume");
  }
  body.inverse_inertia_com_B = body.inertia_com_B.inverse();
}

// A body's `array` key: copies of the body on a regular grid, each displaced by a deterministic
// pseudo-random jitter so that a poured pile does not stay in its unstable symmetric stack.
struct BodyArray {
  std::array<int, 3> counts{1, 1, 1};
  Vec3 spacing = Vec3::Zero();
  Vec3 jitter = Vec3::Zero();
  std::uint64_t seed = 1;
  int size() const { return counts[0] * counts[1] * counts[2]; }
};

BodyArray read_body_array(MapReader& body_reader) {
  BodyArray array;
  if (!body_reader.has("array")) return array;
  MapReader reader(body_reader.get("array"), body_reader.path_of("array"), body_reader.source());
  const Vec3 counts = reader.required_vec3("counts");
  for (int axis = 0; axis < 3; ++axis) {
    if (counts[axis] < 1 || counts[axis] != std::floor(counts[axis]) || counts[axis] > 1e6) {
      reader.fail("counts", "must be three positive integers");
    }
    array.counts[axis] = static_cast<int>(counts[axis]);
  }
  if (static_cast<double>(array.counts[0]) * array.counts[1] * array.counts[2] > 1e5) {
    reader.fail("counts", "more than 100,000 copies (pile_1000, a thousand, runs for minutes)");
  }
  array.spacing = reader.required_vec3("spacing");
  array.jitter = reader.vec3("jitter", Vec3::Zero());
  if (array.jitter.minCoeff() < 0.0) reader.fail("jitter", "must not be negative");
  const double seed = reader.non_negative("seed", 1.0);
  if (seed != std::floor(seed)) reader.fail("seed", "must be a non-negative integer");
  array.seed = static_cast<std::uint64_t>(seed);
  reader.reject_unknown_keys();
  return array;
}

// SplitMix64 (Steele, Lea, Flood 2014): a fixed, portable sequence, unlike the standard library's
// distributions, so that a scene gives the same bodies on every machine.
double unit_interval_sample(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
  z ^= z >> 31U;
  return static_cast<double>(z >> 11U) * 0x1p-53;
}

// Copy k of an array sits at index (i, j, l) with k = i + nx (j + ny l): position + (i, j, l) ⊙
// spacing + jitter ⊙ u, u uniform in [-1, 1]^3; its name is the body's name, '_' and k.
void append_body_copies(const Body& body, const std::vector<Shape>& shapes, const BodyArray& array,
                        Model& model, std::unordered_set<std::string>& body_names) {
  std::uint64_t random_state = array.seed;
  for (int k = 0; k < array.size(); ++k) {
    Body copy = body;
    if (array.size() > 1) {
      copy.name = fmt::format("{}_{}", body.name, k);
      const Vec3 index(k % array.counts[0], (k / array.counts[0]) % array.counts[1],
                       k / (array.counts[0] * array.counts[1]));
      Vec3 unit;
      for (int axis = 0; axis < 3; ++axis)
        unit[axis] = 2.0 * unit_interval_sample(random_state) - 1.0;
      copy.p_WB += index.cwiseProduct(array.spacing) + array.jitter.cwiseProduct(unit);
    }
    // A set, not a scan of the bodies read so far: an array of 10,000 copies loads in linear
    // time.
    if (!body_names.insert(copy.name).second) {
      throw InputError(fmt::format("{}: body '{}': duplicate body name", model.source, copy.name));
    }
    const int body_index = static_cast<int>(model.bodies.size());
    copy.shapes.clear();
    for (Shape shape : shapes) {
      shape.body = body_index;
      copy.shapes.push_back(static_cast<int>(model.shapes.size()));
      model.shapes.push_back(std::move(shape));
    }
    model.bodies.push_back(std::move(copy));
  }
}

// A prescribed body's `prescribed` map: its origin's linear velocity and its angular velocity
// (world frame) as signals, each an input named "<body>.linear_velocity" or
// "<body>.angular_velocity" (zero when not given), so that a host can set them while running.
void read_prescribed_motion(MapReader& body_reader, Body& body, Model& model) {
  MapReader reader(body_reader.get("prescribed"), body_reader.path_of("prescribed"),
                   body_reader.source());
  body.prescribed = true;
  for (const char* key : {"linear_velocity", "angular_velocity"}) {
    Input input;
    input.name = body.name + "." + key;
    const bool linear = key == std::string_view("linear_velocity");
    input.kind = linear ? Input::Kind::linear_velocity : Input::Kind::angular_velocity;
    input.body = static_cast<int>(model.bodies.size());
    if (reader.has(key)) {
      MapReader motion(reader.get(key), reader.path_of(key), reader.source());
      input.signal = read_signal(motion);
      motion.reject_unknown_keys();
    }
    (linear ? body.linear_velocity_input : body.angular_velocity_input) =
        static_cast<int>(model.inputs.size());
    model.inputs.push_back(input);
  }
  reader.reject_unknown_keys();
  for (const char* key : {"linear_velocity", "angular_velocity"}) {
    if (body_reader.has(key)) {
      body_reader.fail(key, "a prescribed body's velocity comes from `prescribed`");
    }
  }
}

void read_bodies(MapReader& root, Model& model) {
  const YAML::Node list = root.sequence("bodies");
  if (list.size() == 0) root.fail("bodies", "is required (at least one body)");
  std::unordered_set<std::string> body_names;
  for (const Body& body : model.bodies) body_names.insert(body.name);
  for (std::size_t i = 0; i < list.size(); ++i) {
    MapReader reader(list[i], indexed("bodies", i), root.source());
    Body body;
    body.name = reader.required_string("name");
    if (body_names.contains(body.name)) reader.fail("name", "duplicate body name");
    body.fixed = reader.boolean("fixed", false);
    if (reader.has("prescribed")) {
      if (body.fixed) reader.fail("prescribed", "a fixed body does not move");
      read_prescribed_motion(reader, body, model);
    }
    body.p_WB = reader.vec3("position", Vec3::Zero());
    body.q_WB = read_orientation(reader, "orientation");
    body.v_WB_W = reader.vec3("linear_velocity", Vec3::Zero());
    body.w_WB_W = reader.vec3("angular_velocity", Vec3::Zero());
    if (body.prescribed) {
      body.v_WB_W = evaluate_signal(model.inputs[body.linear_velocity_input].signal, 0.0);
      body.w_WB_W = evaluate_signal(model.inputs[body.angular_velocity_input].signal, 0.0);
    }
    const BodyArray array = read_body_array(reader);
    if ((body.fixed || body.prescribed) && array.size() > 1) {
      reader.fail("array", "a fixed or prescribed body is not copied");
    }
    // Shapes are read into a list of their own; the copies take their global indices.
    std::vector<Shape> body_shapes;
    const int body_index = static_cast<int>(model.bodies.size());

    std::unordered_set<std::string> shape_names;
    const YAML::Node shapes = reader.sequence("shapes");
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      MapReader shape_reader(shapes[k], indexed(reader.path_of("shapes"), k), root.source());
      Shape shape;
      shape.body = body_index;
      shape.name = shape_reader.string("name", std::to_string(k));
      // A set, not a scan of the shapes read so far: a body of 100,000 shapes loads in linear
      // time.
      if (!shape_names.insert(shape.name).second) {
        shape_reader.fail("name", "duplicate shape name");
      }
      read_shape(shape_reader, shape, model);
      if ((shape.type == ShapeType::halfspace || shape.type == ShapeType::heightmap) &&
          !body.fixed) {
        shape_reader.fail(
            "type", fmt::format("a {} belongs to a fixed body", shape_reader.string("type", "")));
      }
      if (shape.type == ShapeType::mesh && !body.fixed) {
        prepare_moving_mesh(shape_reader, shape, !body.prescribed && shape.collision);
      }
      shape_reader.reject_unknown_keys();
      body_shapes.push_back(shape);
    }
    if (body.fixed) {
      for (const char* key : {"mass", "inertia", "center_of_mass"}) reader.get(key);
      if (body.v_WB_W.norm() > 0.0 || body.w_WB_W.norm() > 0.0) {
        reader.fail("linear_velocity", "a fixed body does not move");
      }
    } else {
      read_body_mass_properties(reader, body, body_shapes, model);
    }
    reader.reject_unknown_keys();
    append_body_copies(body, body_shapes, array, model, body_names);
  }
}

void read_inputs(MapReader& root, Model& model) {
  const YAML::Node list = root.sequence("inputs");
  for (std::size_t i = 0; i < list.size(); ++i) {
    MapReader reader(list[i], indexed("inputs", i), root.source());
    Input input;
    input.name = reader.required_string("name");
    if (model.find_input(input.name) >= 0) reader.fail("name", "duplicate input name");
    // Without a target the input drives the effort of the joint that names it (read_joints).
    if (reader.has("target")) {
      MapReader target(reader.get("target"), reader.path_of("target"), root.source());
      const std::string body = target.required_string("body");
      input.body = model.find_body(body);
      if (input.body < 0) target.fail("body", "unknown body");
      input.kind = target.choice("kind", "force", {"force", "torque"}) == "force"
                       ? Input::Kind::force
                       : Input::Kind::torque;
      input.body_frame = target.choice("frame", "world", {"world", "body"}) == "body";
      target.reject_unknown_keys();
    }
    if (!reader.has("signal")) reader.fail("signal", "is required");
    input.signal = read_signal(reader);
    reader.reject_unknown_keys();
    model.inputs.push_back(input);
  }
}

// The simulation and contact settings; returns whether the scene gave the Zeno guard's rate.
bool read_settings(MapReader& root, Model& model) {
  if (root.has("simulation")) {
    MapReader sim(root.get("simulation"), "simulation", root.source());
    SimulationSettings& s = model.simulation;
    s.stop_time = sim.positive("stop_time", s.stop_time);
    s.integrator = sim.string("integrator", s.integrator);
    try {
      make_integrator(s.integrator);
    } catch (const InputError& error) {
      sim.fail("integrator", error.what());
    }
    s.table = sim.string("table", s.table);
    s.linear_solver = sim.string("linear_solver", s.linear_solver);
    if (sim.has("step_size")) s.step_size = sim.positive("step_size", 1.0);
    // Each option is checked alone (a placeholder step for the others), so the error names it.
    auto check_option = [&](const char* key, IntegratorSettings options) {
      try {
        check_integrator_settings(s.integrator, options);
      } catch (const InputError& error) {
        sim.fail(key, error.what());
      }
    };
    check_option("table", {.table = s.table, .step_size = 1.0});
    check_option("linear_solver", {.linear_solver = s.linear_solver, .step_size = 1.0});
    check_option("step_size", {.step_size = s.step_size});
    s.rtol = sim.positive("rtol", s.rtol);
    if (sim.has("atol")) s.atol = sim.positive("atol", 1.0);
    s.output_interval = sim.positive("output_interval", s.output_interval);
    if (s.stop_time / s.output_interval > kMaxOutputCount) {
      sim.fail("output_interval",
               fmt::format("{:.3g} outputs up to stop_time {} s, more than {:.0e}",
                           s.stop_time / s.output_interval, s.stop_time, kMaxOutputCount));
    }
    if (sim.has("max_step")) s.max_step = sim.positive("max_step", 1.0);
    s.constraint_stabilization =
        sim.non_negative("constraint_stabilization", s.constraint_stabilization);
    s.constraint_tolerance = sim.positive("constraint_tolerance", s.constraint_tolerance);
    const std::string factorization =
        sim.choice("constraint_factorization", "auto", {"auto", "dense", "sparse"});
    s.constraint_factorization = factorization == "dense"    ? ConstraintFactorization::dense
                                 : factorization == "sparse" ? ConstraintFactorization::sparse
                                                             : ConstraintFactorization::automatic;
    sim.reject_unknown_keys();
  } else {
    root.get("simulation");
  }
  if (root.has("contact")) {
    MapReader contact(root.get("contact"), "contact", root.source());
    ContactSettings& c = model.contact;
    c.mpr_tolerance_given = contact.has("mpr_tolerance");
    c.contact_eps_given = contact.has("contact_eps");
    c.mpr_tolerance = contact.positive("mpr_tolerance", c.mpr_tolerance);
    c.contact_eps = contact.positive("contact_eps", std::max(1e-13, 10.0 * c.mpr_tolerance));
    c.max_damping = contact.positive("max_damping", c.max_damping);
    c.stiffness_reduction = contact.positive("stiffness_reduction", c.stiffness_reduction);
    c.points = contact.choice("points", "manifold", {"manifold", "single"}) == "single"
                   ? ContactPoints::single
                   : ContactPoints::manifold;
    c.friction_combination =
        contact.choice("friction_combination", "geometric", {"geometric", "harmonic"}) == "harmonic"
            ? FrictionCombination::harmonic
            : FrictionCombination::geometric;
    if (contact.has("penetration_allowance")) {
      c.penetration_allowance = contact.positive("penetration_allowance", 1e-3);
    }
    const bool guard_given = contact.has("max_events_per_second");
    c.max_events_per_second = contact.positive("max_events_per_second", c.max_events_per_second);
    contact.reject_unknown_keys();
    return guard_given;
  }
  root.get("contact");
  return false;
}

// The default material palette (models/materials.yaml, built in), read from its text.
Model read_palette_text() {
  YamlSource source{"models/materials.yaml (built-in palette)", {}};
  YAML::Node root;
  try {
    root = YAML::Load(kMaterialPaletteYaml);
  } catch (const YAML::Exception& error) {
    throw InputError(fmt::format("{}: {}", source.file, error.what()));
  }
  Model palette;
  MapReader reader(root, "", source);
  reader.string("description", "");
  read_materials(reader, palette);
  read_contact_materials(reader, palette);
  reader.reject_unknown_keys();
  return palette;
}

// The palette's materials and pairs, loaded before every scene. They are read once per process:
// yaml-cpp takes about 0.5 ms for its 2 kB, half of loading a small scene, which a batch or a
// host loading many scenes would pay each time (BENCHMARKS.md, "Start-up").
void read_palette(Model& model) {
  static const Model palette = read_palette_text();  // thread-safe initialisation
  model.materials = palette.materials;
  model.contact_materials = palette.contact_materials;
}

// The general convex path's tested accuracy as mpr_tolerance (see
// ContactSettings::mpr_tolerance), and the default contact_eps that follows from it.
void set_general_path_tolerance(Model& model) {
  ContactSettings& c = model.contact;
  double smallest = kInfinity;  // m, bounding radius of the smallest general-path shape
  for (const Shape& shape : model.shapes) {
    const bool general = shape.type == ShapeType::cylinder || shape.type == ShapeType::cone ||
                         shape.type == ShapeType::ellipsoid || shape.type == ShapeType::convex;
    if (shape.collision && general) smallest = std::min(smallest, compute_bounding_radius(shape));
  }
  if (!std::isfinite(smallest)) return;
  c.mpr_tolerance = kGeneralPathAccuracy * smallest;
  if (!c.contact_eps_given) c.contact_eps = std::max(1e-13, 10.0 * c.mpr_tolerance);
}

// MPR's tolerance on every shape when the scene gives one, else the general path's; with terrain
// a default contact_eps above the vibration of a graze along a valley (kTerrainGrazeHysteresis).
void set_distance_tolerances(Model& model) {
  ContactSettings& c = model.contact;
  if (c.mpr_tolerance_given) {
    for (Shape& shape : model.shapes) shape.mpr_tolerance = c.mpr_tolerance;
  } else {
    set_general_path_tolerance(model);
  }
  const auto terrain = [](const Shape& s) { return s.collision && is_terrain(s); };
  if (c.contact_eps_given || std::none_of(model.shapes.begin(), model.shapes.end(), terrain)) {
    return;
  }
  double smallest = kInfinity;  // m, bounding radius of the smallest shape on a moving body
  for (const Shape& shape : model.shapes) {
    if (!shape.collision || model.bodies[static_cast<std::size_t>(shape.body)].fixed) continue;
    smallest = std::min(smallest, compute_bounding_radius(shape));
  }
  if (std::isfinite(smallest)) {
    c.contact_eps = std::max(c.contact_eps, kTerrainGrazeHysteresis * smallest);
  }
}

Model build_model(const YAML::Node& root_node, YamlSource& source) {
  Model model;
  model.source = source.file;
  MapReader root(root_node, "", source);
  model.name = root.string("name", std::filesystem::path(source.file).stem().string());
  model.description = root.string("description", "");
  model.reference = root.string("reference", "");
  model.gravity_W = root.vec3("gravity", model.gravity_W);
  const bool guard_given = read_settings(root, model);
  read_palette(model);
  read_materials(root, model);
  read_contact_materials(root, model);
  read_bodies(root, model);
  if (!guard_given) {
    // The Zeno guard counts the scene's events: its default grows with the bodies, since a
    // thousand spheres landing in a pile make more than 1e5 events per second without any
    // chattering (1,000 in 10 ms). One chattering contact in such a scene is then caught after
    // 10,000 events in 0.01 s instead of 1,000: later, but still long before a hang.
    const auto free_bodies = std::count_if(model.bodies.begin(), model.bodies.end(),
                                           [](const Body& body) { return !body.fixed; });
    model.contact.max_events_per_second =
        std::max(model.contact.max_events_per_second, 1000.0 * static_cast<double>(free_bodies));
  }
  set_distance_tolerances(model);
  apply_penetration_allowance(model);
  read_inputs(root, model);
  read_joints(root, model);
  read_wheels(root, model);
  read_bilateral_contacts(root, model);
  root.reject_unknown_keys();
  check_collision_pairs(model);
  assign_state_layout(model);
  if (model.state_size == 0) root.fail("bodies", "needs at least one body that is not fixed");
  return model;
}

// Where catalog names are looked up, in order: the installed catalog next to the binary that holds
// this code (the shared library in LIBDIR, a statically linked program in BINDIR, or the Python
// extension in PREFIX/lib/python3.X/site-packages/hybridsim), the source tree's, the configured
// install location.
std::vector<std::filesystem::path> catalog_directories() {
  namespace fs = std::filesystem;
  std::vector<fs::path> directories;
  if (const fs::path binary_directory = code_binary_directory(); !binary_directory.empty()) {
    directories.push_back(binary_directory / HYBRIDSIM_CATALOG_FROM_LIBDIR);
    directories.push_back(binary_directory / HYBRIDSIM_CATALOG_FROM_BINDIR);
    directories.push_back(binary_directory / "../../../../share/hybridsim/scenes");
  }
  directories.emplace_back(HYBRIDSIM_CATALOG_DIR);
  directories.emplace_back(HYBRIDSIM_INSTALLED_CATALOG_DIR);
  return directories;
}

}  // namespace

std::string resolve_scene_path(const std::string& path_or_name) {
  namespace fs = std::filesystem;
  if (fs::is_regular_file(path_or_name)) return path_or_name;
  if (path_or_name.find('/') == std::string::npos) {
    for (const fs::path& directory : catalog_directories()) {
      const fs::path catalog = directory / (path_or_name + ".yaml");
      if (fs::is_regular_file(catalog)) return catalog.string();
    }
  }
  throw InputError(fmt::format("{}: no such scene file or catalog scene", path_or_name));
}

Model load_scene_text(const std::string& text, const std::string& source_name,
                      const std::vector<std::string>& overrides) {
  return load_scene_text(text, source_name, overrides, ImportOptions{});
}

Model load_scene_text(const std::string& text, const std::string& source_name,
                      const std::vector<std::string>& overrides,
                      const ImportOptions& import_options) {
  if (detect_scene_format(text) != SceneFormat::yaml) {
    // An imported file runs as the YAML scene `hybridsim convert` writes: the same text, so the
    // same model. Messages of the YAML stage name the converted scene.
    const ConvertedScene converted = convert_scene_text(text, source_name, import_options);
    Model model = load_scene_text(converted.yaml, source_name + " (converted to YAML)", overrides);
    model.source = source_name;
    for (const std::string& warning : converted.warnings) {
      model.warnings.push_back({"import", warning});
    }
    return model;
  }
  YamlSource source{source_name, {}};
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& error) {
    throw InputError(
        fmt::format("{}:{}: YAML syntax error: {}", source_name, error.mark.line + 1, error.msg));
  }
  if (!root.IsMap()) {
    throw InputError(
        !root.IsDefined() || root.IsNull()
            ? fmt::format("{}:1: the scene is empty (a scene is a YAML map of keys: bodies, ...)",
                          source_name)
            : fmt::format("{}:{}: a scene must be a YAML map of keys, not {}", source_name,
                          root.Mark().line + 1, describe_yaml_value(root)));
  }
  for (const std::string& assignment : overrides) apply_yaml_override(root, assignment, source);
  Model model = build_model(root, source);
  model.overrides = overrides;
  return model;
}

std::vector<CatalogEntry> list_catalog() {
  // The first catalog directory that exists holds the catalog (the same order as the lookup).
  namespace fs = std::filesystem;
  std::vector<CatalogEntry> entries;
  for (const fs::path& directory : catalog_directories()) {
    if (!fs::is_directory(directory)) continue;
    std::vector<fs::path> files;
    for (const auto& item : fs::directory_iterator(directory)) {
      if (item.path().extension() == ".yaml") files.push_back(item.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      CatalogEntry entry;
      entry.name = file.stem().string();
      entry.path = file.string();
      try {
        const Model model = load_scene_file(entry.path);
        entry.description = model.description;
        entry.reference = model.reference;
      } catch (const InputError& error) {
        entry.error = error.what();
      }
      entries.push_back(std::move(entry));
    }
    break;
  }
  return entries;
}

Model load_scene_file(const std::string& path_or_name, const std::vector<std::string>& overrides) {
  return load_scene_file(path_or_name, overrides, ImportOptions{});
}

Model load_scene_file(const std::string& path_or_name, const std::vector<std::string>& overrides,
                      const ImportOptions& import_options) {
  const std::string path = resolve_scene_path(path_or_name);
  return load_scene_text(read_scene_text(path), path, overrides, import_options);
}

}  // namespace hybridsim
