/**
 * npm run trace -- <video file> --event <id> --api <ApiUrl>
 *
 * Reads the forensic watermark from a leaked copy and asks the API which session and code it names
 * (docs/watermark-design.md). Signs in as STAGEDOOR_USER (default owner) with STAGEDOOR_PASSWORD and
 * asks on the terminal for a code when two-factor sign-in is on. Prints a short report, then as its
 * last line the JSON { code, tokenId, label, sessionId, confidence }. Exit 0 when the trace ran
 * (whether or not it named anyone), 1 on any error.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createInterface } from 'node:readline/promises';
import { StaffApi } from './trace/api-client';
import { jsonLine } from './trace/report';
import { runTrace } from './trace/run-trace';

const USAGE = 'usage: npm run trace -- <video file> --event <eventId> --api <ApiUrl>   (env STAGEDOOR_USER, STAGEDOOR_PASSWORD)';

function options() {
  const { values, positionals } = parseArgs({ options: { event: { type: 'string' }, api: { type: 'string' } }, allowPositionals: true });
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0 || !values.event || !values.api) throw new Error(USAGE);
  if (!existsSync(file)) throw new Error(`${file}: no such file`);
  if (!/^https?:\/\//.test(values.api)) throw new Error(`--api must be the API's URL (http:// or https://), got "${values.api}"`);
  const password = process.env.STAGEDOOR_PASSWORD;
  if (!password) throw new Error('set STAGEDOOR_PASSWORD (and STAGEDOOR_USER unless it is owner)');
  return { file, eventId: values.event, apiUrl: values.api, username: process.env.STAGEDOOR_USER || 'owner', password };
}

/** The code from the authenticator (or a recovery code), asked on the terminal; stdout stays the report's. */
async function askCode(): Promise<string> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await prompt.question('two-factor code: ');
  } finally {
    prompt.close();
  }
}

async function main(): Promise<void> {
  const { file, eventId, apiUrl, username, password } = options();
  const api = await StaffApi.signIn(apiUrl, { username, password, askCode });
  const answer = await runTrace({ file, eventId, api, say: (line) => console.log(line) });
  console.log(jsonLine(answer));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`trace: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
