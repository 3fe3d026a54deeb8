// Mounts the Vue View (Game.vue); the Host's teardown unmounts it.
import Game from "./Game.vue";
import { createApp } from "vue";

const view = createApp(Game, { unmount: () => view.unmount() });
view.mount("#root");
