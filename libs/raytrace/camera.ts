// A pinhole camera (eye, look-at point, up vector, vertical field of view in degrees): the
// `--camera eye,at,up,fov` of `trace`, a default that frames a mesh's bounds, and the fixed
// viewpoints of the benchmark scenes, so Fig. 7's primary rays are the same on every run.
// Primary rays go through pixel centres (jittered with several samples per pixel), row by
// row from the top-left pixel, samples of one pixel next to each other.
import type { Bounds } from './mesh.ts';
import { seededRandom } from '../shared/random.ts';
import { makeRays, RAY_FLOATS, type Rays } from './rays.ts';

export type Vec3 = readonly [number, number, number];

export interface Camera {
  eye: Vec3;
  at: Vec3;
  up: Vec3;
  /** Vertical field of view in degrees. */
  fov: number;
}

const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const length = (a: Vec3): number => Math.hypot(a[0], a[1], a[2]);
const scale = (a: Vec3, s: number): Vec3 => [a[0] * s, a[1] * s, a[2] * s];
const normalize = (a: Vec3): Vec3 => scale(a, 1 / length(a));

/** Why `camera` cannot take a picture, or undefined. */
export function checkCamera(camera: Camera): string | undefined {
  const all = [...camera.eye, ...camera.at, ...camera.up, camera.fov];
  if (!all.every(Number.isFinite)) return 'every value must be a finite number';
  const view = sub(camera.at, camera.eye);
  if (length(view) === 0) return 'the eye and the point looked at are the same';
  if (length(camera.up) === 0) return 'the up vector is 0,0,0';
  if (length(cross(normalize(view), normalize(camera.up))) < 1e-6) return 'the up vector is parallel to the viewing direction';
  if (!(camera.fov > 0 && camera.fov < 180)) return `the field of view ${camera.fov} is not between 0 and 180 degrees`;
  return undefined;
}

/** Reads `ex,ey,ez,ax,ay,az,ux,uy,uz,fov` (ten numbers; the eye, the point looked at, up, degrees). */
export function parseCamera(text: string): Camera {
  const words = text.split(',').map((w) => w.trim());
  const nums = words.map((w) => (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(w) ? Number(w) : NaN));
  if (nums.length !== 10) throw new Error(`expected 10 comma-separated numbers eye(x,y,z),at(x,y,z),up(x,y,z),fov, found ${nums.length}`);
  const bad = words.find((_, i) => Number.isNaN(nums[i]));
  if (bad !== undefined) throw new Error(`'${bad}' is not a number`);
  const camera: Camera = { eye: [nums[0]!, nums[1]!, nums[2]!], at: [nums[3]!, nums[4]!, nums[5]!], up: [nums[6]!, nums[7]!, nums[8]!], fov: nums[9]! };
  const why = checkCamera(camera);
  if (why) throw new Error(why);
  return camera;
}

export function formatCamera(c: Camera): string {
  return [...c.eye, ...c.at, ...c.up, c.fov].map((x) => Number(x.toPrecision(6))).join(',');
}

/** The default field of view. */
export const DEFAULT_FOV = 60;

/**
 * A camera that sees all of `bounds` (y up, as OBJ files usually are): it looks at the
 * box's centre from the front-right, above, far enough that the box's bounding sphere fits
 * the narrower of the two fields of view.
 */
export function defaultCamera(bounds: Bounds, aspect = 1): Camera {
  const c: Vec3 = [(bounds[0]! + bounds[3]!) / 2, (bounds[1]! + bounds[4]!) / 2, (bounds[2]! + bounds[5]!) / 2];
  const radius = Math.max(length(sub([bounds[3]!, bounds[4]!, bounds[5]!], c)), 1e-6);
  const vertical = (DEFAULT_FOV * Math.PI) / 360;
  const narrow = Math.min(vertical, Math.atan(Math.tan(vertical) * aspect));
  const direction = normalize([0.55, 0.45, 1]);
  const distance = (radius / Math.sin(narrow)) * 1.02;
  return { eye: [c[0] + direction[0] * distance, c[1] + direction[1] * distance, c[2] + direction[2] * distance], at: c, up: [0, 1, 0], fov: DEFAULT_FOV };
}

/**
 * The fixed viewpoints of the benchmark scenes (datasets/scenes; names without extension),
 * inside the buildings where a scene is one, as the classic renders of them are.
 */
export const SCENE_CAMERAS: Readonly<Record<string, Camera>> = {
  sponza_crytek: { eye: [-12.5, 2.2, -0.4], at: [10, 4.5, 0.4], up: [0, 1, 0], fov: 65 },
  sponza_dabrovic: { eye: [-13, 2, 0], at: [10, 5, 0], up: [0, 1, 0], fov: 65 },
  sibenik: { eye: [-18, -11, 0], at: [10, -6, 0], up: [0, 1, 0], fov: 70 },
  conference: { eye: [1300, 350, 400], at: [0, 150, -300], up: [0, 1, 0], fov: 65 },
};

/** The camera `trace` and the benchmark use for a scene: its fixed viewpoint, else the default framing. */
export function sceneCamera(name: string, bounds: Bounds, aspect = 1): Camera {
  return SCENE_CAMERAS[name] ?? defaultCamera(bounds, aspect);
}

/** A scene's name as SCENE_CAMERAS knows it: the file name without directories and `.obj[.gz|.xz]`. */
export function sceneName(file: string): string {
  return (file.split('/').pop() ?? file).replace(/\.obj(\.gz|\.xz)?$/i, '');
}

/**
 * The primary rays of a `width` × `height` image: `spp` per pixel, through the pixel centre
 * for one sample and jittered within the pixel (reproducibly, by `seed`) for more. Ray
 * (y·width + x)·spp + s is sample s of pixel (x, y), y = 0 the top row; directions have length 1.
 */
export function primaryRays(camera: Camera, width: number, height: number, spp = 1, seed = 1): Rays {
  const why = checkCamera(camera);
  if (why) throw new Error(`camera: ${why}`);
  const forward = normalize(sub(camera.at, camera.eye));
  const right = normalize(cross(forward, camera.up));
  const up = cross(right, forward);
  const h = Math.tan((camera.fov * Math.PI) / 360);
  const w = (h * width) / height;
  const rays = makeRays(width * height * spp);
  const d = rays.data;
  const jitter = seededRandom(seed);
  let o = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let s = 0; s < spp; s++) {
        const jx = spp === 1 ? 0.5 : jitter();
        const jy = spp === 1 ? 0.5 : jitter();
        const px = (((x + jx) / width) * 2 - 1) * w;
        const py = (1 - ((y + jy) / height) * 2) * h;
        const dx = forward[0] + px * right[0] + py * up[0];
        const dy = forward[1] + px * right[1] + py * up[1];
        const dz = forward[2] + px * right[2] + py * up[2];
        const inv = 1 / Math.hypot(dx, dy, dz);
        d[o] = camera.eye[0];
        d[o + 1] = camera.eye[1];
        d[o + 2] = camera.eye[2];
        d[o + 3] = dx * inv;
        d[o + 4] = dy * inv;
        d[o + 5] = dz * inv;
        d[o + 6] = 0;
        d[o + 7] = Infinity;
        o += RAY_FLOATS;
      }
    }
  }
  return rays;
}
