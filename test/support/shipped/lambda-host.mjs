// The Lambda Node.js runtime for one function's bundle, in a fresh process: it loads
// LAMBDA_TASK_ROOT/<_HANDLER> as the runtime does and runs the invocations its parent sends
// over IPC. Plain JavaScript with Node's own modules only, so nothing from the repository can
// stand in for what the bundle left out. Two local facts are added: names under `localhost`
// resolve to loopback (the KeyValueStore client puts the account id in front of the
// endpoint's host), and every attempt to load a module the bundle does not contain is reported.
import { existsSync } from 'node:fs';
import dns from 'node:dns';
import Module, { isBuiltin, register } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';

const lookup = dns.lookup;
dns.lookup = function lookupLocalhost(hostname, options, callback) {
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) {
    const cb = typeof options === 'function' ? options : callback;
    const all = typeof options === 'object' && options?.all;
    return process.nextTick(() => (all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)));
  }
  return lookup.call(this, hostname, options, callback);
};

const leftOut = new Set();
const isPackage = (specifier) => !/^(\.|\/|file:|data:|node:)/.test(specifier) && !isBuiltin(specifier);

const { port1, port2 } = new MessageChannel();
port1.on('message', (specifier) => leftOut.add(specifier));
port1.unref();
const hooks = `
import { isBuiltin } from 'node:module';
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  if (!/^(\\.|\\/|file:|data:|node:)/.test(specifier) && !isBuiltin(specifier)) port.postMessage(specifier);
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { port: port2 }, transferList: [port2] });
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveRecorded(request, ...rest) {
  if (isPackage(request)) leftOut.add(request);
  return resolveFilename.call(this, request, ...rest);
};

const [file, exported] = process.env._HANDLER.split(/\.(?=[^.]+$)/);
const base = join(process.env.LAMBDA_TASK_ROOT, file);
const path = ['.mjs', '.js', '.cjs'].map((ext) => base + ext).find(existsSync);
if (!path) throw new Error(`Runtime.ImportModuleError: Cannot find module '${file}' in ${process.env.LAMBDA_TASK_ROOT}`);
const handler = (await import(pathToFileURL(path).href))[exported];
if (typeof handler !== 'function') throw new Error(`Runtime.HandlerNotFound: ${process.env._HANDLER} is undefined or not exported`);

const settle = () => new Promise((resolve) => setImmediate(resolve));
process.on('message', async ({ id, event, context }) => {
  const deadline = Date.now() + context.timeoutMs;
  const lambdaContext = {
    ...context,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
  try {
    const result = await handler(event, lambdaContext);
    await settle();
    process.send({ id, result: result === undefined ? null : result, leftOut: [...leftOut] });
  } catch (error) {
    await settle();
    process.send({ id, error: { errorType: error?.name ?? 'Error', errorMessage: String(error?.message ?? error), trace: String(error?.stack ?? '').split('\n') }, leftOut: [...leftOut] });
  }
});
process.send({ ready: true, leftOut: [...leftOut] });
