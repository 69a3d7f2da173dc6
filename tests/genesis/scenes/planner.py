"""Inverse kinematics and the RRT-Connect path planner (genesis.utils.path_planning) on the
Franka arm with a box in its way (Genesis rigid solver, CPU). The planner samples with qd.random.

  python planner.py [--out FILE.json] [--steps N] [--performance-mode] [--repeat K]

Solves IK for a grasp pose behind the box, plans a path to it (`plan_path`, RRTConnect), then
follows the path for --steps steps with position control. Prints the times of scene.build(), of
the IK solve and of each plan_path (--repeat K plans the same path K times, each from the same
start: the later ones show the steady cost); --out writes the IK solution, the planned waypoints
and every followed step's qpos."""

import argparse
import json
import time

import genesis as gs
import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--performance-mode", action="store_true")
    opts = ap.parse_args()
    gs.init(backend=gs.cpu, logging_level="warning", seed=0,
            **({"performance_mode": True} if opts.performance_mode else {}))
    scene = gs.Scene(show_viewer=False)
    scene.add_entity(gs.morphs.Plane())
    scene.add_entity(gs.morphs.Box(pos=(0.45, 0.0, 0.25), size=(0.08, 0.5, 0.5), fixed=True))
    franka = scene.add_entity(gs.morphs.MJCF(file="xml/franka_emika_panda/panda.xml"))
    t0 = time.perf_counter()
    scene.build()
    t1 = time.perf_counter()
    home = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.04, 0.04])
    franka.set_qpos(home)
    hand = franka.get_link("hand")
    qpos_goal = franka.inverse_kinematics(link=hand, pos=np.array([0.65, 0.0, 0.25]),
                                          quat=np.array([0.0, 1.0, 0.0, 0.0]))
    qpos_goal[-2:] = 0.04
    t2 = time.perf_counter()
    plans = []
    for _ in range(opts.repeat):
        franka.set_qpos(home)
        t = time.perf_counter()
        path = franka.plan_path(qpos_goal=qpos_goal, num_waypoints=100)
        plans.append(time.perf_counter() - t)
    trace = []
    for step in range(opts.steps):
        franka.control_dofs_position(path[min(step, len(path) - 1)])
        scene.step()
        trace.append(franka.get_qpos().tolist())
    print(json.dumps({"build_s": t1 - t0, "ik_s": t2 - t1, "plan_path_s": plans,
                      "waypoints": len(path)}))
    if opts.out:
        with open(opts.out, "w") as f:
            json.dump({"ik": qpos_goal.tolist(), "path": [p.tolist() for p in path],
                       "qpos": trace}, f)


if __name__ == "__main__":
    main()
