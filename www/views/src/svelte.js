// Mounts the Svelte View (Game.svelte); the Host's teardown unmounts it.
import Game from "./Game.svelte";
import { mount, unmount } from "svelte";

const view = mount(Game, { target: document.getElementById("root"), props: { unmount: () => unmount(view) } });
