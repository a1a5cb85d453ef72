// The benchmark scenes shipped in this folder (xz-compressed Wavefront OBJ, read by
// libs/raytrace's loadObj), by name, with the counts the loader must reproduce; the
// licence and attribution of each is in README.md here.
import { fileURLToPath } from 'node:url';

export interface SceneFile {
  /** Short name: what `trace` and the benchmark accept. */
  readonly name: string;
  readonly title: string;
  /** Absolute path of the .obj.xz file. */
  readonly path: string;
  readonly vertices: number;
  readonly triangles: number;
}

const scene = (name: string, title: string, vertices: number, triangles: number): SceneFile => ({
  name,
  title,
  path: fileURLToPath(new URL(`${name}.obj.xz`, import.meta.url)),
  vertices,
  triangles,
});

/** The classic ray-tracing benchmark scenes, smallest first. */
export const SCENES: readonly SceneFile[] = [
  scene('sponza_dabrovic', 'Sponza Atrium (Dabrovic)', 39_999, 66_454),
  scene('stanford_bunny', 'Stanford Bunny', 35_947, 69_451),
  scene('sibenik', 'Sibenik Cathedral', 40_981, 75_284),
  scene('sponza_crytek', 'Crytek Sponza', 161_391, 262_191),
  scene('conference', 'Conference Room', 194_399, 331_179),
];

/** The scene called `name`, or undefined. */
export function sceneByName(name: string): SceneFile | undefined {
  return SCENES.find((s) => s.name === name);
}
