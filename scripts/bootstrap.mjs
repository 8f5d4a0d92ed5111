#!/usr/bin/env node
// Runs before `npm start` and `npm test` so that the README's two commands work
// on a fresh machine: npm dependencies, then the system tools the command needs.
// Plain Node (no dependencies), since it runs before they exist.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';

const purpose = ['test', 'bench'].includes(process.argv[2]) ? process.argv[2] : 'start';

const lock = 'package-lock.json';
const installed = 'node_modules/.package-lock.json';
if (!existsSync(installed) || statSync(lock).mtimeMs > statSync(installed).mtimeMs + 1000) {
  console.error('bootstrap: installing npm dependencies (npm ci)');
  run('npm', ['ci', '--no-audit', '--no-fund']);
}

// Debian package -> a command or file that shows it is there.
const tools = {
  // libsrt, gcc and pkg-config build the ingest's SRT listener (ingest-container/srt/srt-gate.c).
  start: { ffmpeg: '/usr/bin/ffmpeg', ...srtBuildTools() },
  // chromium: browser tests; njs: the edge function under its runtime; a JRE: DynamoDB Local;
  // VLC (headless, with its demuxers and decoders): a header-less player of the playback URL.
  test: {
    ffmpeg: '/usr/bin/ffmpeg',
    ...srtBuildTools(),
    chromium: '/usr/bin/chromium',
    njs: '/usr/bin/njs',
    'default-jre-headless': 'java',
    'vlc-bin': '/usr/bin/cvlc',
    'vlc-plugin-base': '/usr/share/doc/vlc-plugin-base',
    // faketime: CI runs the unit tests once more under a clock 60 days ahead (fixed instants that expire).
    faketime: '/usr/bin/faketime',
    // poppler: the printed ticket sheet is checked as paper shows it (pdftoppm renders, pdftotext -bbox reads).
    'poppler-utils': '/usr/bin/pdftoppm',
  },
  // nginx with its RTMP module: the baseline the ingest benchmarks compare against; wrk: load generator;
  // chromium: the glass-to-glass benchmark plays the viewer page.
  bench: {
    ffmpeg: '/usr/bin/ffmpeg',
    ...srtBuildTools(),
    chromium: '/usr/bin/chromium',
    wrk: '/usr/bin/wrk',
    nginx: '/usr/sbin/nginx',
    'libnginx-mod-rtmp': '/usr/share/nginx/modules-available/mod-rtmp.conf',
    // DynamoDB Local, against which bench/stand-ins-dynamodb-start.ts measures the embedded stand-in.
    'default-jre-headless': 'java',
  },
}[purpose];

const missing = Object.entries(tools)
  .filter(([, probe]) => (probe.startsWith('/') ? !existsSync(probe) : !onPath(probe)))
  .map(([pkg]) => pkg);
if (missing.length && !(purpose === 'start' && process.env.FFMPEG_PATH)) {
  const canApt = process.getuid?.() === 0 && onPath('apt-get');
  if (!canApt) {
    console.error(`bootstrap: missing system packages: ${missing.join(' ')}; install them (Debian: apt-get install ${missing.join(' ')})`);
    process.exit(1);
  }
  console.error(`bootstrap: installing ${missing.join(' ')} with apt-get`);
  run('apt-get', ['update', '-qq']);
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { DEBIAN_FRONTEND: 'noninteractive' });
}

buildSrtGate();

function srtBuildTools() {
  return { 'libsrt-gnutls-dev': '/usr/include/srt/srt.h', gcc: 'gcc', 'pkg-config': 'pkg-config' };
}

/** The SRT listener is a small C program against libsrt (no Node binding installs here); rebuilt when its source is newer. */
function buildSrtGate() {
  const source = 'ingest-container/srt/srt-gate.c';
  const binary = 'ingest-container/srt/build/srt-gate';
  if (existsSync(binary) && statSync(binary).mtimeMs >= statSync(source).mtimeMs) return;
  console.error(`bootstrap: compiling ${binary}`);
  mkdirSync('ingest-container/srt/build', { recursive: true });
  const flags = execFileSync('pkg-config', ['--cflags', '--libs', 'srt'], { encoding: 'utf8' }).trim().split(/\s+/);
  run('gcc', ['-O2', '-Wall', '-o', binary, source, ...flags, '-lpthread']);
}

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function run(command, args, env = {}) {
  execFileSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
}
