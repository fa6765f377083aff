// A process that only passes bytes: runs `node <args…>` as its child and copies its own stdin to
// the child's stdin and the child's stdout to its own stdout, chunk by chunk, parsing nothing.
// bench/floor.mjs puts it in front of the plain MCP server to measure what one more Node process in
// the chain costs by itself (toolhost serve's jailed executor is such a process, with an isolate
// entry in place of the copy). Ends when its stdin ends or its child does.
//
// `node bench/lib/byte-relay.mjs <script> [args…]`
import { spawn } from 'node:child_process';

const child = spawn(process.execPath, process.argv.slice(2), { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.on('data', (chunk) => child.stdin.write(chunk));
process.stdin.on('end', () => child.stdin.end());
child.stdout.on('data', (chunk) => process.stdout.write(chunk));
child.on('exit', (code) => process.exit(code ?? 1));
