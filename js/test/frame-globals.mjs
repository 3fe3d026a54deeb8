// A View's frame in Node: window.openai and localStorage as globals, put back
// after each test, and a localStorage stand-in with key()/length and a quota.
import { afterEach } from "node:test";

const GLOBALS = ["openai", "localStorage"];
const saved = Object.fromEntries(GLOBALS.map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)]));

export function setGlobal(name, value) {
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
}

export function setGlobalGetter(name, get) {
  Object.defineProperty(globalThis, name, { get, configurable: true });
}

afterEach(() => {
  for (const name of GLOBALS) {
    if (saved[name]) Object.defineProperty(globalThis, name, saved[name]);
    else delete globalThis[name];
  }
});

/** A Storage stand-in with a quota on the characters of keys and values (none by default), and key()/length. */
export class QuotaStorage {
  map = new Map();
  constructor(quotaChars = Infinity) {
    this.quota = quotaChars;
  }
  used(except) {
    let n = 0;
    for (const [k, v] of this.map) if (k !== except) n += k.length + v.length;
    return n;
  }
  getItem(key) {
    return this.map.has(key) ? this.map.get(key) : null;
  }
  setItem(key, value) {
    value = String(value);
    if (this.used(key) + key.length + value.length > this.quota) throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
    this.map.set(key, value);
  }
  removeItem(key) {
    this.map.delete(key);
  }
  get length() {
    return this.map.size;
  }
  key(i) {
    return [...this.map.keys()][i] ?? null;
  }
}
