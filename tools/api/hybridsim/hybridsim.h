/* hybridsim C API: a scene simulator behind an opaque handle, for hosts in C and for wrappers
 * (Python ctypes/cffi, Julia ccall, ...).
 *
 * Every function that can fail returns a hybridsim_status; on an error the handle keeps a message
 * that names what was wrong (file, key and value for scene errors), read with
 * hybridsim_error_message(). No C++ exception crosses this interface. A handle has no shared state
 * with other handles: handles may be used in parallel threads, each by one thread at a time.
 *
 * Frames: W is the world frame, B a body frame. Units: SI (m, kg, s, N, rad); times are simulated
 * time in s. Quaternions are (w, x, y, z). Vectors are double[3] in the frame their name says.
 *
 * Typical use:
 *   hybridsim_simulator* sim = hybridsim_create();
 *   if (hybridsim_load_file(sim, "scene.yaml") != HYBRIDSIM_OK) puts(hybridsim_error_message(sim));
 *   hybridsim_advance_to(sim, 1.0, 0, &t);
 *   hybridsim_get_body_state(sim, "ball", &state);
 *   hybridsim_free(sim);
 */
#ifndef HYBRIDSIM_H
#define HYBRIDSIM_H

#include <stddef.h>
#include <stdint.h>

#include "hybridsim/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Versioned structs. Every struct the library fills starts with `size_t size`, which the caller
 * sets to the size of its struct before the call:
 *   hybridsim_statistics stats = {.size = sizeof stats};
 * The library fills the fields that fit in that size, so that a host built against an older
 * header (a smaller struct) keeps working with a newer library, and a host built against a newer
 * header keeps its own values in fields an older library does not know. A size that cannot hold
 * the first field is HYBRIDSIM_ERROR_INPUT. Fields are only ever appended. Counters are 64-bit. */

/* An opaque simulator handle. */
typedef struct hybridsim_simulator hybridsim_simulator;

/* Result of every call. */
typedef enum hybridsim_status {
  HYBRIDSIM_OK = 0,
  HYBRIDSIM_ERROR_INPUT = 1,     /* invalid scene, option or value (the message names it) */
  HYBRIDSIM_ERROR_NOT_FOUND = 2, /* no body, input, event or contact with that name or index */
  HYBRIDSIM_ERROR_NULL = 3,      /* a required pointer argument is NULL */
  HYBRIDSIM_ERROR_STATE = 4,     /* not valid now (no scene loaded, options after loading, ...) */
  HYBRIDSIM_ERROR_HALTED = 5,    /* the simulation stopped on a numerical outcome (step failure,
                                    Zeno guard, model error); the state computed so far is kept */
  HYBRIDSIM_ERROR_BUFFER = 6,    /* a caller's buffer is too small */
  HYBRIDSIM_ERROR_INTERNAL = 7,  /* an unexpected failure inside the library (a bug: report it) */
  /* Not a status: it makes every int up to 2^31 - 1 a valid value of the type, so that
   * hybridsim_status_string may be given any value a caller holds (C++ allows only the range
   * the enumerators span). */
  HYBRIDSIM_STATUS_MAX_ENUM = 0x7FFFFFFF
} hybridsim_status;

/* The simulation's own status (hybridsim_statistics.simulation_status). */
typedef enum hybridsim_simulation_status {
  HYBRIDSIM_SIMULATION_OK = 0,           /* running, or reached its stop time */
  HYBRIDSIM_SIMULATION_STEP_FAILURE = 1, /* the integrator could not take a step */
  HYBRIDSIM_SIMULATION_ZENO_GUARD = 2,   /* too many events per unit of simulated time */
  HYBRIDSIM_SIMULATION_ERROR = 3,        /* an error inside the model (e.g. a non-finite state) */
  HYBRIDSIM_SIMULATION_INTERRUPTED = 4,  /* stopped from outside (a signal to the command line) */
  HYBRIDSIM_SIMULATION_TIME_LIMIT = 5,   /* the wall-time limit ("time_limit" option) was reached */
  HYBRIDSIM_SIMULATION_STEP_BUDGET = 6,  /* more steps per simulated second than the budget */
  HYBRIDSIM_SIMULATION_STALLED = 7       /* simulated time stopped advancing (a "stall" warning) */
} hybridsim_simulation_status;

/* State of one body at the simulator's time. */
typedef struct hybridsim_body_state {
  size_t size; /* sizeof the struct, set by the caller (see Versioned structs) */
  double position[3];         /* p_WB: origin of B in W, m */
  double orientation[4];      /* q_WB as (w, x, y, z), unit */
  double linear_velocity[3];  /* velocity of B's origin in W, m/s */
  double angular_velocity[3]; /* angular velocity of B in W, rad/s */
} hybridsim_body_state;

/* Integrator statistics and event counters, summed over all restarts. */
typedef struct hybridsim_statistics {
  size_t size; /* sizeof the struct, set by the caller (see Versioned structs) */
  int64_t steps;             /* integrator steps */
  int64_t rhs_evals;         /* right-hand-side evaluations, including those for Jacobians */
  int64_t jac_evals;         /* Jacobian evaluations */
  int64_t root_evals;        /* crossing-function evaluations */
  int64_t error_test_fails;  /* steps rejected by the error test */
  int64_t nonlinear_iters;   /* nonlinear solver iterations */
  int64_t nonlinear_conv_fails; /* nonlinear solver convergence failures */
  int64_t state_events;      /* instants at which a crossing function triggered */
  int64_t time_events;       /* input breakpoints, host input changes, bilateral switches at a
                                time or by the host */
  int64_t contact_starts;    /* contact_start records */
  int64_t contact_ends;      /* contact_end records */
  int64_t restarts;          /* integrator re-initialisations */
  double t;                  /* the simulator's time, s */
  hybridsim_simulation_status simulation_status; /* how the run stands */
  int64_t bilateral_switches;                    /* bilateral_on and bilateral_off records */
  int64_t stick_slip_switches;                   /* stick and slip records */
} hybridsim_statistics;

/* Kind of an event record. */
typedef enum hybridsim_event_kind {
  HYBRIDSIM_EVENT_CONTACT_START = 0, /* a pair came into contact (or was at the start) */
  HYBRIDSIM_EVENT_CONTACT_END = 1,   /* a pair separated */
  HYBRIDSIM_EVENT_TIME_EVENT = 2,    /* an input breakpoint or a host input change */
  HYBRIDSIM_EVENT_GUARD_STOP = 3,    /* the Zeno guard stopped the run */
  HYBRIDSIM_EVENT_BILATERAL_ON = 4,  /* a bilateral contact was switched on (shape_a, shape_b:
                                        its two bodies; point: its anchor; normal: its z axis) */
  HYBRIDSIM_EVENT_BILATERAL_OFF = 5, /* a bilateral contact was switched off */
  HYBRIDSIM_EVENT_STICK = 6,         /* a friction patch started to stick (shape_a, shape_b: its
                                        two bodies; point, normal: its mean point and normal) */
  HYBRIDSIM_EVENT_SLIP = 7,          /* a friction patch started to slide */
  HYBRIDSIM_EVENT_LIMIT_ON = 8,      /* a side of a joint limit started to push */
  HYBRIDSIM_EVENT_LIMIT_OFF = 9      /* a side of a joint limit stopped pushing */
} hybridsim_event_kind;

/* One event record (docs/outputs.md, events JSONL). Strings point into the simulator and stay
 * valid until the next call that advances, steps, sets or releases an input, switches a
 * bilateral contact, clears events,
 * loads a scene or frees the handle.
 * Numbers that do not apply to the kind are NaN. */
typedef struct hybridsim_event {
  size_t size; /* sizeof the struct, set by the caller (see Versioned structs) */
  double t;                   /* s */
  hybridsim_event_kind kind;  /* what happened */
  const char* crossing;       /* "z1" or "z2" for a contact start or end found by a root;
                                 "" otherwise (initialisation, time events, patch, limit and
                                 bilateral switches: docs/physics.md names their functions) */
  const char* shape_a;        /* "body/shape" of A (A < B); "" for time events */
  const char* shape_b;        /* "body/shape" of B */
  double distance;            /* signed distance at the event, m; a limit's bound, rad or m */
  double normal[3];           /* unit normal from A to B in W */
  double point[3];            /* contact point in W, m */
  double pre_impact_velocity; /* stored normal approach speed at contact start, m/s; for a
                                 limit event the joint rate at the switch, rad/s or m/s */
  const char* description;    /* time events, guard stops, patch, limit and bilateral switches
                                 (naming the joint and side of a limit); "" otherwise */
} hybridsim_event;

/* Contact-law results of one pair in contact, world frame W. The contacts are a snapshot taken
 * by hybridsim_get_contact_count; its strings stay valid until the next get_contact_count, load or
 * free. After an advance, step, input change or bilateral switch the snapshot is dropped: call
 * get_contact_count again (get_contact returns HYBRIDSIM_ERROR_NOT_FOUND until then). */
typedef struct hybridsim_contact {
  size_t size; /* sizeof the struct, set by the caller (see Versioned structs) */
  const char* shape_a;      /* "body/shape" of A */
  const char* shape_b;      /* "body/shape" of B */
  double penetration;       /* m, positive when penetrating */
  double penetration_rate;  /* m/s, positive approaching */
  double normal_force;      /* N, on B along the normal */
  double slip_velocity[3];  /* tangential velocity of B relative to A at the contact point, m/s */
  double friction_force[3]; /* tangential force on B, N */
  double point[3];          /* contact point, m */
  double normal[3];         /* unit normal from A to B */
  double force_on_b[3];     /* total force on B at the contact point, N (A gets the opposite) */
  double torque_on_b[3];    /* pure torque on B (rolling and spin resistance), N m */
} hybridsim_contact;

/* One wheel's contact frame and slip (the contact of the largest normal force; without a contact
 * the frame lies on the normal along gravity at the nominal radius). Ratios that are undefined
 * (omega = 0, v = 0) read 0, never NaN. */
typedef struct hybridsim_wheel_state {
  size_t size; /* sizeof the struct, set by the caller (see Versioned structs) */
  double normal[3];          /* unit normal from the wheel into the ground, W */
  double lateral[3];         /* t_lat: the spin axis projected onto the tangent plane */
  double longitudinal[3];    /* t_lon = normal x lateral */
  double v_lon, v_lat;       /* wheel centre's velocity relative to the ground at C, m/s */
  double slip_lon, slip_lat; /* slip velocity of the wheel at C, m/s */
  double omega;              /* spin rate about the axis, rad/s */
  double radius;             /* distance from the axle to the contact point, m */
  double r_omega;            /* radius * omega, m/s */
  double s_a, s_b;           /* slip ratios (accelerating, braking) */
  double S_a;                /* (R omega - v_lon) / (R |omega|) */
  double alpha;              /* atan(v_lat / v_lon), rad */
  double normal_force;       /* N, summed over the wheel's contacts */
} hybridsim_wheel_state;

/* --- Library ---------------------------------------------------------------------------------- */
/* The library's version, "MAJOR.MINOR.PATCH", and as MAJOR * 10000 + MINOR * 100 + PATCH. */
const char* hybridsim_version(void);
int hybridsim_version_number(void);
/* A status as text ("ok", "input error", ...); "unknown status" for other values. */
const char* hybridsim_status_string(hybridsim_status status);

/* --- Handle ----------------------------------------------------------------------------------- */
/* A new, empty simulator; NULL only when out of memory. */
hybridsim_simulator* hybridsim_create(void);
/* Frees the handle and everything it owns; NULL is ignored. */
void hybridsim_free(hybridsim_simulator* sim);
/* The message of the last failed call on this handle ("" after a successful one). Valid until the
 * next call on the handle. For a NULL handle: a fixed message saying so. */
const char* hybridsim_error_message(const hybridsim_simulator* sim);

/* --- Loading ---------------------------------------------------------------------------------- */
/* Options, before loading: "integrator" (a registry name), "rtol", "atol", "stop_time" (s),
 * "output_interval" (s, positive), "max_step" (s), "step_size" (s), "time_limit" (s of wall
 * time, 0: none), "step_budget" (steps per simulated second, 0: none); numbers as text. For
 * SDFormat, URDF and MJCF files: "resource_path" (colon-separated directories for package://
 * and model://, each call adds), "urdf_root" ("fixed" or "floating"), "default_material" (a
 * palette name). An option not set takes the scene's value. An unknown key is
 * HYBRIDSIM_ERROR_NOT_FOUND; a value that is not a finite number, or an unknown integrator, is
 * HYBRIDSIM_ERROR_INPUT; after loading, HYBRIDSIM_ERROR_STATE. */
hybridsim_status hybridsim_set_option(hybridsim_simulator* sim, const char* key, const char* value);
/* A scene override "KEY=VALUE" applied at loading, as `hybridsim run --set`. */
hybridsim_status hybridsim_add_override(hybridsim_simulator* sim, const char* assignment);
/* Loads a scene file (or catalog name) and creates the simulation at its start time. */
hybridsim_status hybridsim_load_file(hybridsim_simulator* sim, const char* path_or_name);
/* Loads a scene from YAML (or SDFormat, URDF, MJCF) text; source_name (may be NULL) stands for the file in
 * messages. SDFormat, URDF and MJCF files and texts are recognised by their first element. */
hybridsim_status hybridsim_load_string(hybridsim_simulator* sim, const char* yaml_text,
                                       const char* source_name);
/* Writes a URDF or MJCF file as the hybridsim scene YAML that loading it simulates (the import
 * options above apply); HYBRIDSIM_ERROR_INPUT names the file, line and element of bad input. */
hybridsim_status hybridsim_convert_file(hybridsim_simulator* sim, const char* input_path,
                                        const char* output_yaml_path);

/* --- Advancing -------------------------------------------------------------------------------- */
/* Advances to time t (s, >= the current time); with stop_at_events != 0 it returns right after
 * the first event instant before t. *t_reached (may be NULL) gets the time on return, also when
 * the result is HYBRIDSIM_ERROR_HALTED. */
hybridsim_status hybridsim_advance_to(hybridsim_simulator* sim, double t, int stop_at_events,
                                      double* t_reached);
/* One integrator step with the events at its end; *t_reached (may be NULL) as above. */
hybridsim_status hybridsim_step(hybridsim_simulator* sim, double* t_reached);

/* --- Reading ---------------------------------------------------------------------------------- */
/* The simulator's time, s. */
hybridsim_status hybridsim_get_time(const hybridsim_simulator* sim, double* t);
/* The state vector: 13 values per free body, in body order: position of the body origin in W (m),
 * quaternion q_WB (w, x, y, z), velocity of the body origin in W (m/s), angular velocity of B in
 * B (rad/s). get_state copies it into `state`, which holds `capacity` doubles
 * (HYBRIDSIM_ERROR_BUFFER if fewer than the state size). */
hybridsim_status hybridsim_get_state_size(const hybridsim_simulator* sim, size_t* size);
hybridsim_status hybridsim_get_state(const hybridsim_simulator* sim, double* state,
                                     size_t capacity);
/* The state of the named body (HYBRIDSIM_ERROR_NOT_FOUND for an unknown name). */
hybridsim_status hybridsim_get_body_state(const hybridsim_simulator* sim, const char* body,
                                          hybridsim_body_state* state);
/* The coordinate and rate of the named joint: rad and rad/s (revolute), m and m/s (prismatic);
 * spherical and fixed joints give the relative rotation angle and angular speed
 * (HYBRIDSIM_ERROR_NOT_FOUND for an unknown name). */
hybridsim_status hybridsim_get_joint_state(const hybridsim_simulator* sim, const char* joint,
                                           double* position, double* velocity);
/* Kinetic + gravitational potential + elastic contact energy, J. */
hybridsim_status hybridsim_get_energy(const hybridsim_simulator* sim, double* energy);
/* Integrator statistics, event counters, time and status so far. */
hybridsim_status hybridsim_get_statistics(const hybridsim_simulator* sim,
                                          hybridsim_statistics* statistics);
/* Event records so far, in time order; clear_events forgets them. */
hybridsim_status hybridsim_get_event_count(const hybridsim_simulator* sim, size_t* count);
hybridsim_status hybridsim_get_event(hybridsim_simulator* sim, size_t index,
                                     hybridsim_event* event);
hybridsim_status hybridsim_clear_events(hybridsim_simulator* sim);
/* Pairs in contact at the current time: count, then each one by index (0 <= index < count). */
hybridsim_status hybridsim_get_contact_count(hybridsim_simulator* sim, size_t* count);
hybridsim_status hybridsim_get_contact(hybridsim_simulator* sim, size_t index,
                                       hybridsim_contact* contact);

/* The named wheel's frame and slip at the current time (HYBRIDSIM_ERROR_NOT_FOUND for an
 * unknown name). */
hybridsim_status hybridsim_get_wheel_state(const hybridsim_simulator* sim, const char* wheel,
                                           hybridsim_wheel_state* state);

/* --- Contacts for controllers (docs/controllers.md) ------------------------------------------ */
/* Generalised velocities v: 6 per free body in body order, the state's velocity entries (the
 * body origin's velocity in W, m/s; the angular velocity in B, rad/s). velocity_column gives a
 * body's first column, -1 for a fixed body (HYBRIDSIM_ERROR_NOT_FOUND for an unknown name). */
hybridsim_status hybridsim_get_velocity_size(const hybridsim_simulator* sim, size_t* size);
hybridsim_status hybridsim_get_velocity_column(const hybridsim_simulator* sim, const char* body,
                                               int64_t* column);

/* One contact point's frame, world frame W. pair and slot name it for get_contact_jacobian; they
 * stay valid until the next event (after which the call returns HYBRIDSIM_ERROR_NOT_FOUND if the
 * point is gone). The law names are static strings. */
typedef struct hybridsim_contact_frame {
  size_t size; /* sizeof the struct, set by the caller (see Versioned structs) */
  uint64_t pair;            /* shape pair key (A's shape index << 32 | B's) */
  int slot;                 /* the point's slot in its pair */
  double witness_a[3];      /* witness point on A's surface, m */
  double witness_b[3];      /* witness point on B's surface, m */
  double normal[3];         /* unit normal from A to B */
  double tangent1[3];       /* the friction law's first direction */
  double tangent2[3];       /* normal x tangent1 */
  double mu;                /* friction coefficient along tangent1 (kinetic) */
  double mu2;               /* along tangent2 */
  const char* normal_law;   /* "elastic", "hunt_crossley", ... */
  const char* friction_law; /* "regularized_coulomb", "stribeck", ... */
} hybridsim_contact_frame;
/* The frame of contact `index` of the snapshot taken by hybridsim_get_contact_count. */
hybridsim_status hybridsim_get_contact_frame(hybridsim_simulator* sim, size_t index,
                                             hybridsim_contact_frame* frame);
/* The contact Jacobian of (pair, slot) at the current time, 6 x nv row-major into `jacobian`
 * (6 * velocity_size doubles): rows 0-2 give the relative velocity of the witness points (B's
 * minus A's, W), rows 3-5 w_B - w_A (W). `drift` (6 doubles, may be NULL) receives J' v.
 * Allocates nothing. HYBRIDSIM_ERROR_NOT_FOUND when the point is not in contact now. */
hybridsim_status hybridsim_get_contact_jacobian(const hybridsim_simulator* sim, uint64_t pair,
                                                int slot, double* jacobian, double* drift);
/* A linearised friction cone around a frame's normal: edges x 3 row-major into `rows`, C f <= 0
 * for a force f on B inside it; inscribed (circumscribed = 0) or circumscribed (1) about
 * |f_t| <= mu f_n. HYBRIDSIM_ERROR_INPUT for fewer than 3 edges. */
hybridsim_status hybridsim_get_friction_cone(hybridsim_simulator* sim,
                                             const hybridsim_contact_frame* frame, int edges,
                                             int circumscribed, double* rows);

/* --- Bilateral contacts and constraint wrenches ----------------------------------------------- */
/* Switches the named bilateral contact on (1) or off (0) from the current time: an event with a
 * restart; switching to the state it is in does nothing. get_bilateral reads whether it is on. */
hybridsim_status hybridsim_set_bilateral(hybridsim_simulator* sim, const char* name, int on);
hybridsim_status hybridsim_get_bilateral(const hybridsim_simulator* sim, const char* name, int* on);
/* The wrench a joint or a bilateral contact transmits to its child (the second body) now: force
 * (N) and torque (N m) about `point` (the child's anchor, m), world frame. */
hybridsim_status hybridsim_get_joint_wrench(const hybridsim_simulator* sim, const char* joint,
                                            double force[3], double torque[3], double point[3]);
hybridsim_status hybridsim_get_bilateral_wrench(const hybridsim_simulator* sim, const char* name,
                                                double force[3], double torque[3], double point[3]);

/* --- Inputs ----------------------------------------------------------------------------------- */
/* Sets an input to a constant (force N or torque N m, in the input's frame) from the current time
 * on: a time event with a restart once the run has started. get_input reads the value in force
 * now; release_input returns the input to its scene signal (a time event too). Unknown names are
 * HYBRIDSIM_ERROR_NOT_FOUND. */
hybridsim_status hybridsim_set_input(hybridsim_simulator* sim, const char* input,
                                     const double value[3]);
hybridsim_status hybridsim_get_input(const hybridsim_simulator* sim, const char* input,
                                     double value[3]);
hybridsim_status hybridsim_release_input(hybridsim_simulator* sim, const char* input);

/* --- Warnings --------------------------------------------------------------------------------- */
/* What a host should know that does not stop the run, as the command line's summary keeps it:
 * kind "degenerate_mesh", "initial_overlap", "stiff_contact", "energy_rise" or "stall", at simulated time t
 * (s), with a one-line message naming what it is about. The callback (NULL: none) is called as
 * each is raised, inside the call that raised it (load, advance, step), with strings valid during
 * the call; set it before loading to see the start's. get_warning reads them afterwards: the
 * strings stay valid until the next load or free. */
typedef void (*hybridsim_warning_callback)(double t, const char* kind, const char* message,
                                           void* user_data);
hybridsim_status hybridsim_set_warning_callback(hybridsim_simulator* sim,
                                                hybridsim_warning_callback callback,
                                                void* user_data);
hybridsim_status hybridsim_get_warning_count(const hybridsim_simulator* sim, size_t* count);
hybridsim_status hybridsim_get_warning(const hybridsim_simulator* sim, size_t index, double* t,
                                       const char** kind, const char** message);

#ifdef __cplusplus
}
#endif

#endif /* HYBRIDSIM_H */
