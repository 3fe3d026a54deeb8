// The packed package and ext-apps as the framework entries' tests use them:
// the View (the package's app and framework entries, ext-apps' App) from the
// ext-apps 1.x project (js/views/ext-apps-1) with EXT_APPS=1, else from the
// 2.x one; the Host is always the package's ViewStateAppBridge on ext-apps
// 2.x (the app-bridge entry needs 2.x's AppBridge), linked in memory.
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { createRequestStateCodec } from "@modelcontextprotocol/server";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PROJECTS } from "./setup.mjs";

export const EXT_APPS_MAJOR = process.env.EXT_APPS === "1" ? 1 : 2;
const modulesOf = (major) => join(PROJECTS[major], "node_modules");
const json = (file) => JSON.parse(readFileSync(file, "utf8"));
// An export of a package installed in `modules`, as Node resolves it.
const importFrom = (modules, name, specifier) => {
  const target = json(join(modules, name, "package.json")).exports[specifier];
  return import(pathToFileURL(join(modules, name, typeof target === "string" ? target : (target.node ?? target.default))).href);
};
/** An entry of the installed package (".", "./vue", …) on the View's side. */
export const importPackage = (specifier) => importFrom(modulesOf(EXT_APPS_MAJOR), "mcp-sealed-state", specifier);

export const extApps = json(join(modulesOf(EXT_APPS_MAJOR), "@modelcontextprotocol/ext-apps/package.json")).version;
const { App } = await importFrom(modulesOf(EXT_APPS_MAJOR), "@modelcontextprotocol/ext-apps", ".");
const { AppBridge } = await importFrom(modulesOf(2), "@modelcontextprotocol/ext-apps", "./app-bridge");
const { ViewStateAppBridge } = await importFrom(modulesOf(2), "mcp-sealed-state", "./app-bridge");
const { connectWithViewState } = await importPackage("./app");
export const { STATE_META_KEY, SEALED_STATE_INVALID_MESSAGE } = await importPackage("./widget");

const codec = createRequestStateCodec({ key: "a framework entry test key of at least 32 bytes" });
/** A token the keeper takes. */
export const mint = (d) => codec.mint({ p: "v", d });

export { hostStorage } from "../lib/host-storage.mjs";

/** A View's App, not connected. */
export const newApp = () => new App({ name: "v", version: "1" }, {}, { autoResize: false });

/** A Host (ViewStateAppBridge over `storage`, or a plain AppBridge) linked in memory to `app` (a new App unless given), connected with connectWithViewState. */
export async function connected(storage, { app = newApp(), offer = true } = {}) {
  const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
  const bridge = offer ? new ViewStateAppBridge(null, { name: "h", version: "1" }, {}, {}, { storage }) : new AppBridge(null, { name: "h", version: "1" }, {}, {});
  bridge.oncalltool = async () => ({ content: [{ type: "text", text: "pong" }] });
  await bridge.connect(hostSide);
  const viewState = await connectWithViewState(app, viewSide);
  await viewState.ready;
  return { app, bridge, viewState, ping: () => app.callServerTool({ name: "ping", arguments: {} }) };
}

/** Let promise callbacks and zero-delay timers run. */
export const settle = () => new Promise((r) => setTimeout(r, 0));
