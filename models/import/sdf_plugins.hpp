// Gazebo's model plugins that have a counterpart in hybridsim's scene:
//  - WheelSlip (gazebo-classic libWheelSlipPlugin.so, gz-sim's wheel-slip system): each <wheel
//    link_name> becomes a `wheels` entry with its slip compliances, normal force and radius; its
//    spin axis is the axis of the joint whose child the link is.
//  - gz-sim's JointController: <initial_velocity> as a velocity servo, ideal (a constraint) unless
//    <use_force_commands> asks for a PID, whose p_gain is the servo's gain.
//  - gz-sim's JointPositionController: a position servo to <initial_position> with p_gain and
//    d_gain as kp and kd.
// Other plugins, and the elements of these that hybridsim does not model, give warnings.
#pragma once

#include <map>
#include <string>

#include <yaml-cpp/yaml.h>
#include <sdf/Element.hh>

#include "models/import/scene_tree.hpp"

namespace hybridsim {

// Reads the <plugin> elements of one model (its element `model`, its scoped name `prefix`
// "outer::model::") into `tree`, whose bodies and joints the model's links and joints already
// are; `body_names` maps "prefix + link" to the body. InputError with the line for a plugin that
// names a link or joint the model does not have.
void read_sdf_model_plugins(const sdf::ElementPtr& model, const std::string& prefix,
                            const std::map<std::string, std::string>& body_names, YAML::Node tree,
                            ImportContext& context);

}  // namespace hybridsim
