#include "models/trajectory_row.hpp"

namespace hybridsim {

std::vector<std::string> trajectory_column_names(const Model& model) {
  std::vector<std::string> names;
  for (const Body& body : model.bodies) {
    for (const char* column :
         {"x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"}) {
      names.push_back(body.name + '.' + column);
    }
  }
  for (const Joint& joint : model.joints) {
    names.push_back(joint.name + ".q");
    names.push_back(joint.name + ".qd");
  }
  names.emplace_back("energy");
  // Wheel columns come last, so that the columns of a scene without wheels stay as they were.
  for (const Wheel& wheel : model.wheels) {
    for (const char* column :
         {"s_a", "s_b", "S_a", "alpha", "v_lon", "v_lat", "R_omega", "normal_force"}) {
      names.push_back("wheel." + wheel.name + '.' + column);
    }
  }
  return names;
}

void compute_trajectory_row(MultibodySystem& system, ConstVectorRef x, std::vector<double>& row) {
  row.clear();
  for (const BodyKinematics& k : system.compute_kinematics(x)) {
    const Vec3& p = k.X_WB.translation;
    // Velocity of the body origin (the state's), from the centre-of-mass velocity.
    const Vec3 v = k.v_WCom_W + k.w_WB_W.cross(p - k.p_WCom);
    const Vec3& w = k.w_WB_W;
    row.insert(row.end(), {p.x(), p.y(), p.z(), k.q_WB.w(), k.q_WB.x(), k.q_WB.y(), k.q_WB.z(),
                           v.x(), v.y(), v.z(), w.x(), w.y(), w.z()});
  }
  for (const JointCoordinate& q : system.compute_joint_coordinates(x)) {
    row.push_back(q.position);
    row.push_back(q.velocity);
  }
  row.push_back(system.compute_energy(x));
  if (!system.model().wheels.empty()) {
    for (const MultibodySystem::WheelOutput& wheel : system.compute_wheel_outputs(x)) {
      const WheelContactState& w = wheel.state;
      row.insert(row.end(), {w.s_a, w.s_b, w.S_a, w.alpha, w.v_W_lon, w.v_W_lat, w.R_omega,
                             wheel.normal_force});
    }
  }
}

}  // namespace hybridsim
