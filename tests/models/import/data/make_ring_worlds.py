#!/usr/bin/env python3
"""Writes Gazebo's friction rings as SDFormat worlds from the catalog scenes they equal.

friction_cone_ring.sdf (Gazebo's MaximumDissipation test, ODE's cone_model) and fdir1_ring.sdf
(BoxDirectionRing) carry the catalog scenes' bodies, shapes, fdir1 and launch velocities (in a
<state>), with surfaces that Gazebo's rules turn into the catalog's contact law. As in Gazebo's
test worlds, ring 2 turns the link and ring 3 the model. Run from the repository's root:
    python3 tests/models/import/data/make_ring_worlds.py
"""
import yaml

STEEL = "<elastic_modulus>2.0e11</elastic_modulus><poissons_ratio>0.3</poissons_ratio>"


def numbers(values):
    return " ".join(repr(float(x)) for x in values)


def surface(mu, mu2, fdir1):
    direction = f"<fdir1>{numbers(fdir1)}</fdir1>" if fdir1 is not None else ""
    return (f"<surface><friction><ode><mu>{mu!r}</mu><mu2>{mu2!r}</mu2>{direction}</ode>"
            f"</friction><bounce><restitution_coefficient>0.5</restitution_coefficient>"
            f"<threshold>0.01</threshold></bounce><contact>{STEEL}</contact></surface>")


def pose(position, orientation):
    rpy = orientation["rpy"] if orientation else [0, 0, 0]
    if not any(position) and not any(rpy):
        return ""
    return f"<pose>{numbers(position)} {numbers(rpy)}</pose>"


def world(scene_name, mu, mu2, cone, header):
    scene = yaml.safe_load(open(f"models/scenes/{scene_name}.yaml"))
    out = [f'<?xml version="1.0"?>\n<!-- {header} -->\n<sdf version="1.9">',
           f'  <world name="{scene_name}">',
           f"    <gravity>{numbers(scene.get('gravity', [0, 0, -9.81]))}</gravity>"]
    if cone:
        out.append("    <physics name=\"ode\" type=\"ode\"><ode><solver>"
                   "<friction_model>cone_model</friction_model></solver></ode></physics>")
    out.append(f"""    <model name="floor">
      <static>true</static>
      <link name="floor">
        <collision name="surface">
          <geometry><plane><normal>0 0 1</normal><size>100 100</size></plane></geometry>
          {surface(mu, mu2, None)}
        </collision>
      </link>
    </model>""")
    state = []
    for body in scene["bodies"][1:]:
        name = body["name"]
        turn_model = name.startswith("ring3")
        model_pose = pose(body["position"], body.get("orientation")) if turn_model else \
            pose(body["position"], None)
        link_pose = "" if turn_model else pose([0, 0, 0], body.get("orientation"))
        inertia = body["inertia"]
        out.append(f"""    <model name="{name}">
      {model_pose}
      <link name="body">
        {link_pose}
        <inertial>
          <mass>{float(body['mass'])!r}</mass>
          <inertia><ixx>{float(inertia[0])!r}</ixx><iyy>{float(inertia[1])!r}</iyy><izz>{float(inertia[2])!r}</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia>
        </inertial>""")
        for shape in body["shapes"]:
            assert set(shape) <= {"name", "type", "radius", "size", "position", "orientation",
                                  "material", "fdir1"}, shape
            geometry = (f"<sphere><radius>{float(shape['radius'])!r}</radius></sphere>"
                        if shape["type"] == "sphere" else
                        f"<box><size>{numbers(shape['size'])}</size></box>")
            out.append(f"""        <collision name="{shape['name']}">
          {pose(shape.get('position', [0, 0, 0]), shape.get('orientation'))}
          <geometry>{geometry}</geometry>
          {surface(mu, mu2, shape.get('fdir1'))}
        </collision>""")
        out.append("      </link>\n    </model>")
        if "linear_velocity" in body:
            velocity = numbers(body["linear_velocity"] + [0, 0, 0])
            state.append(f'      <model name="{name}"><link name="body">'
                         f"<velocity>{velocity}</velocity></link></model>")
    if state:
        out.append(f'    <state world_name="{scene_name}">\n      <iterations>0</iterations>')
        out += state
        out.append("    </state>")
    out.append("  </world>\n</sdf>\n")
    open(f"tests/models/import/data/{scene_name}.sdf", "w").write("\n".join(out))


world("friction_cone_ring", 0.3, 0.3, True,
      "Gazebo's MaximumDissipation friction test (gazebo-classic test/integration/"
      "physics_friction.cc): five rings of 32 boxes (0.5 x 0.5 x 0.2 m, 1 kg) at radii 9 to 13 m "
      "launched outward at (radius) m/s on a plane, mu = mu2 = 0.3 under ODE's cone_model; fdir1 "
      "variants per ring that the cone ignores. Each box stands on four 2 mm steel spheres at its "
      "lower corners. Written by make_ring_worlds.py from the hybridsim scene friction_cone_ring.")
world("fdir1_ring", 100.0, 0.0, False,
      "Gazebo's BoxDirectionRing friction test (gazebo-classic test/integration/"
      "physics_friction.cc): four half rings of 11 boxes (0.5 x 0.5 x 0.2 m, 1 kg) at radii 5 to "
      "8 m under gravity (0, 1, -9.81), mu = 100 along a body-fixed fdir1 on each box's tangent "
      "and mu2 = 0 across it. Each box stands on four 2 mm steel spheres at its lower corners. "
      "Written by make_ring_worlds.py from the hybridsim scene fdir1_ring.")
