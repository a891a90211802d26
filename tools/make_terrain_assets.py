#!/usr/bin/env python3
"""Writes the terrain files of the catalog scenes heightmap_hills and mesh_bowl, and of the
terrain benchmarks (BENCHMARKS.md).

    python3 tools/make_terrain_assets.py    # rewrites models/scenes/meshes/{hills,hills_257,bumps}.pgm, bowl.obj

hills.pgm: a 65 x 65 gray image (P2, levels 0..1000) of sin(2 pi x / 2) sin(2 pi y / 2) hills over
4 x 4 m, level = 500 (1 + sin sin). bowl.obj: a spherical bowl (radius 0.5 m, centre 0.5 m above
its bottom, walls up to 50 degrees from the bottom) in 24 rings of 48 sectors, with a flat rim out
to 0.6 m, faces counter-clockwise seen from above (the inside of the bowl). bumps.pgm: an 81 x 41
gray image (P2, levels 0..1000) of 500 (1 + sin(2 pi x / 1.6) sin(2 pi y / 1.2)) over 8 x 4 m, the
rover_terrain scene's bumps.
"""
import math
import pathlib

out = pathlib.Path(__file__).resolve().parent.parent / "models" / "scenes" / "meshes"

n = 65
with open(out / "hills.pgm", "w") as f:
    f.write(f"P2\n# heightmap_hills: 500 (1 + sin(pi x) sin(pi y)), x, y in [-2, 2] m\n{n} {n}\n1000\n")
    for row in range(n):  # the image's top row lies at +y
        y = 2.0 - 4.0 * row / (n - 1)
        f.write(" ".join(str(round(500 * (1 + math.sin(math.pi * (-2.0 + 4.0 * c / (n - 1))) *
                                          math.sin(math.pi * y)))) for c in range(n)) + "\n")

# The same hills at 257 x 257 points (P5, 8 bits): with size [x, y, 0] a flat 256 x 256-cell grid.
n = 257
with open(out / "hills_257.pgm", "wb") as f:
    f.write(f"P5\n{n} {n}\n255\n".encode())
    for row in range(n):
        y = 2.0 - 4.0 * row / (n - 1)
        f.write(bytes(round(127.5 * (1 + math.sin(math.pi * (-2.0 + 4.0 * c / (n - 1))) *
                                     math.sin(math.pi * y))) for c in range(n)))

R, rings, sectors, wall, rim = 0.5, 24, 48, math.radians(50.0), 0.6
vertices = [(0.0, 0.0, 0.0)]
for i in range(1, rings + 1):
    a = wall * i / rings
    for j in range(sectors):
        p = 2 * math.pi * j / sectors
        vertices.append((R * math.sin(a) * math.cos(p), R * math.sin(a) * math.sin(p),
                         R - R * math.cos(a)))
top = R - R * math.cos(wall)
for j in range(sectors):
    p = 2 * math.pi * j / sectors
    vertices.append((rim * math.cos(p), rim * math.sin(p), top))
faces = []
ring = lambda i, j: 1 + (i - 1) * sectors + j % sectors
for j in range(sectors):
    faces.append((0, ring(1, j), ring(1, j + 1)))
for i in range(1, rings + 1):  # ring rings + 1 is the rim's outer edge
    for j in range(sectors):
        a, b = ring(i, j), ring(i, j + 1)
        c, d = ring(i + 1, j + 1), ring(i + 1, j)
        faces += [(a, d, c), (a, c, b)]
with open(out / "bowl.obj", "w") as f:
    f.write("# mesh_bowl: spherical bowl R = 0.5 m, walls to 50 degrees, flat rim to 0.6 m\n")
    for v in vertices:
        f.write("v %.9f %.9f %.9f\n" % v)
    for t in faces:
        f.write("f %d %d %d\n" % (t[0] + 1, t[1] + 1, t[2] + 1))

nx, ny = 81, 41
with open(out / "bumps.pgm", "w") as f:
    f.write(f"P2\n# rover_terrain: 500 (1 + sin(2 pi x / 1.6) sin(2 pi y / 1.2)), x in [-4, 4] m, "
            f"y in [-2, 2] m\n{nx} {ny}\n1000\n")
    for row in range(ny):  # the image's top row lies at +y
        y = 2.0 - 4.0 * row / (ny - 1)
        f.write(" ".join(str(round(500 * (1 + math.sin(2 * math.pi * (-4.0 + 8.0 * c / (nx - 1)) / 1.6) *
                                          math.sin(2 * math.pi * y / 1.2)))) for c in range(nx)) + "\n")
