#include "core/model.hpp"

#include <algorithm>

namespace hybridsim {

const char* to_string(ShapeType type) {
  switch (type) {
    case ShapeType::sphere:
      return "sphere";
    case ShapeType::box:
      return "box";
    case ShapeType::halfspace:
      return "halfspace";
    case ShapeType::capsule:
      return "capsule";
    case ShapeType::cylinder:
      return "cylinder";
    case ShapeType::cone:
      return "cone";
    case ShapeType::ellipsoid:
      return "ellipsoid";
    case ShapeType::convex:
      return "convex";
    case ShapeType::mesh:
      return "mesh";
    case ShapeType::heightmap:
      return "heightmap";
  }
  return "?";
}

bool Model::may_collide(int shape_a, int shape_b) const {
  const Shape& a = shapes[shape_a];
  const Shape& b = shapes[shape_b];
  if (!a.collision || !b.collision || a.body == b.body) return false;
  // Neither of two bodies that forces do not move (fixed or prescribed) would feel a contact.
  const auto immovable = [this](int body) { return bodies[body].fixed || bodies[body].prescribed; };
  if (immovable(a.body) && immovable(b.body)) return false;
  const std::pair<int, int> bodies_ab = std::minmax(a.body, b.body);
  if (std::binary_search(non_colliding_joints.begin(), non_colliding_joints.end(), bodies_ab)) {
    return false;
  }
  return (a.collision_group & b.collision_mask) != 0 && (b.collision_group & a.collision_mask) != 0;
}

int Model::find_body(const std::string& body_name) const {
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    if (bodies[i].name == body_name) return static_cast<int>(i);
  }
  return -1;
}

int Model::find_joint(const std::string& joint_name) const {
  for (std::size_t i = 0; i < joints.size(); ++i) {
    if (joints[i].name == joint_name) return static_cast<int>(i);
  }
  return -1;
}

int Model::find_input(const std::string& input_name) const {
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].name == input_name) return static_cast<int>(i);
  }
  return -1;
}

int Model::find_wheel(const std::string& wheel_name) const {
  for (std::size_t i = 0; i < wheels.size(); ++i) {
    if (wheels[i].name == wheel_name) return static_cast<int>(i);
  }
  return -1;
}

int Model::find_bilateral_contact(const std::string& contact_name) const {
  for (std::size_t i = 0; i < bilateral_contacts.size(); ++i) {
    if (bilateral_contacts[i].name == contact_name) return static_cast<int>(i);
  }
  return -1;
}

const char* to_string(BilateralContact::Trigger trigger) {
  switch (trigger) {
    case BilateralContact::Trigger::contact_start:
      return "contact_start";
    case BilateralContact::Trigger::time:
      return "time";
    case BilateralContact::Trigger::api:
      return "api";
    case BilateralContact::Trigger::never:
      return "never";
  }
  return "?";
}

int Model::find_material(const std::string& material_name) const {
  for (std::size_t i = 0; i < materials.size(); ++i) {
    if (materials[i].name == material_name) return static_cast<int>(i);
  }
  return -1;
}

int Model::find_contact_material(int material_a, int material_b) const {
  const std::string& a = materials.at(material_a).name;
  const std::string& b = materials.at(material_b).name;
  for (std::size_t i = 0; i < contact_materials.size(); ++i) {
    const ContactMaterial& cm = contact_materials[i];
    if ((cm.material_a == a && cm.material_b == b) || (cm.material_a == b && cm.material_b == a)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

std::string Model::shape_label(int shape) const {
  const Shape& s = shapes.at(shape);
  return bodies.at(s.body).name + "/" + s.name;
}

void assign_state_layout(Model& model) {
  int offset = 0;
  for (Body& body : model.bodies) {
    body.state_offset = body.fixed ? -1 : offset;
    if (!body.fixed) offset += 13;
  }
  model.state_size = offset;
}

void index_joints(Model& model) {
  model.non_colliding_joints.clear();
  for (const Joint& joint : model.joints) {
    if (!joint.can_collide) {
      model.non_colliding_joints.push_back(std::minmax(joint.parent, joint.child));
    }
  }
  std::sort(model.non_colliding_joints.begin(), model.non_colliding_joints.end());
}

}  // namespace hybridsim
