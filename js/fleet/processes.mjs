// This process's own children, read from /proc (Linux): which workerd a
// Miniflare instance started (its PID, to kill -9 it and nothing else), how
// much memory it holds and how much CPU it has used.
import { readFileSync, readdirSync } from "node:fs";

/** PIDs of this process's direct children whose command name is `name`. */
export function childPids(name) {
  const pids = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // gone between the listing and the read
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split at the last ")".
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const ppid = Number(stat.slice(close + 2).split(" ")[1]);
    if (ppid === process.pid && comm === name) pids.push(Number(entry));
  }
  return pids;
}

/** Resident memory of `pid` in KiB (VmRSS), or undefined once it has exited. */
export function rssKiB(pid) {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux build Node supports

/** CPU time `pid` has used (user + system) in seconds, or undefined once it has exited. */
export function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After "pid (comm) ", utime and stime are the 12th and 13th fields.
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Whether `pid` is still running (a zombie counts as gone). */
export function alive(pid) {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}
