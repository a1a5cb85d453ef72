// Run before `npm start` and `npm test`: makes sure node_modules and the native toolchain
// (clang-19, llc-19, ld.lld-19, TBB) and the OpenCL platform the GPU tests run on (PoCL, a CPU
// device, through the ICD loader) are present. When nothing is missing it only checks
// files and hashes three small manifests, so it costs milliseconds; it never spawns apt
// or npm unless something is actually missing.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The toolchain, the OpenCL platform, and the references the tests compare against (Embree
// for ray tracing, Parasail and SSW for alignment, built with g++; xz reads the bundled
// scenes and sequences; clang-19's OpenMP and NumPy for the array programs' C and NumPy
// references). The benchmarks install their other references themselves.
const PACKAGES = [
  'clang-19', 'llvm-19', 'lld-19', 'libtbb-dev', 'ocl-icd-libopencl1', 'pocl-opencl-icd',
  'g++', 'xz-utils', 'libembree-dev', 'libparasail-dev', 'libssw-dev', 'libomp-19-dev', 'python3-numpy',
];
// The root manifests and every workspace's (a changed `bin` needs npm install too).
const WORKSPACES = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).workspaces ?? [];
const MANIFESTS = ['package.json', 'package-lock.json', ...WORKSPACES.map((w) => `${w}/package.json`)];
// Written after a successful install: the manifests' hash at that time.
const STAMP = path.join(root, 'node_modules', '.anydsl-setup-stamp');

function manifestsHash() {
  const hash = createHash('sha256');
  for (const file of MANIFESTS) {
    const full = path.join(root, file);
    hash.update(`${file}\0${existsSync(full) ? readFileSync(full) : ''}\0`);
  }
  return hash.digest('hex');
}

function ensureNodeModules() {
  const current = manifestsHash();
  const stamp = existsSync(STAMP) ? readFileSync(STAMP, 'utf8') : '';
  if (stamp === current && existsSync(path.join(root, 'node_modules', '.bin', 'impala'))) return;
  console.error(`setup: ${existsSync(path.join(root, 'node_modules')) ? 'dependencies changed' : 'node_modules is missing'}; running npm install`);
  const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (npm.status !== 0) fail('npm install failed (see above)');
  // npm may normalise package-lock.json, so hash what it left behind.
  writeFileSync(STAMP, manifestsHash());
}

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// The same places compiler/src/driver/toolchain.ts looks: versioned names on PATH, plain names in the LLVM 19 directory.
function findTool(versioned, plain) {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  return dirs.some((d) => isExecutable(path.join(d, versioned))) || isExecutable(path.join('/usr/lib/llvm-19/bin', plain));
}

function missingNativeParts() {
  const missing = [];
  if (!findTool('clang-19', 'clang')) missing.push('clang-19');
  if (!findTool('llc-19', 'llc')) missing.push('llc-19');
  if (!findTool('ld.lld-19', 'ld.lld')) missing.push('ld.lld-19');
  const includeDirs = ['/usr/include', '/usr/local/include'];
  if (!includeDirs.some((d) => existsSync(path.join(d, 'tbb', 'parallel_for.h')))) missing.push('TBB headers');
  const multiarch = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' }[process.arch] ?? '';
  const libDirs = [`/usr/lib/${multiarch}`, '/usr/lib', '/usr/lib64', '/usr/local/lib'];
  if (!libDirs.some((d) => existsSync(path.join(d, 'libtbb.so')))) missing.push('libtbb.so');
  if (!libDirs.some((d) => existsSync(path.join(d, 'libOpenCL.so.1')))) missing.push('the OpenCL ICD loader');
  if (!existsSync('/etc/OpenCL/vendors/pocl.icd')) missing.push('PoCL');
  if (!findTool('g++', 'g++')) missing.push('g++');
  if (!findTool('xz', 'xz')) missing.push('xz');
  for (const [header, name] of [['embree3/rtcore.h', 'Embree'], ['parasail.h', 'Parasail'], ['ssw.h', 'SSW']]) {
    if (!includeDirs.some((d) => existsSync(path.join(d, header)))) missing.push(name);
  }
  if (!existsSync('/usr/lib/llvm-19/lib/libomp.so')) missing.push("clang-19's OpenMP");
  if (!existsSync('/usr/lib/python3/dist-packages/numpy')) missing.push('NumPy');
  return missing;
}

function ensureNativeToolchain() {
  const missing = missingNativeParts();
  if (missing.length === 0) return;
  const install = `apt-get install -y ${PACKAGES.join(' ')}`;
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    fail(`missing ${missing.join(', ')}.\nInstall the Debian packages as root: apt-get update && ${install}`);
  }
  console.error(`setup: missing ${missing.join(', ')}; installing ${PACKAGES.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', ...PACKAGES]]) {
    const apt = spawnSync('apt-get', args, { stdio: ['ignore', 'inherit', 'inherit'], env });
    if (apt.status !== 0) fail(`apt-get ${args[0]} failed (see above); install by hand: ${install}`);
  }
  const still = missingNativeParts();
  if (still.length > 0) fail(`still missing after installing: ${still.join(', ')}`);
}

function fail(message) {
  console.error(`setup: ${message}`);
  process.exit(1);
}

ensureNodeModules();
ensureNativeToolchain();
