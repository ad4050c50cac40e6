import { clamp } from "@demo/utils";
export const Slider = (v) => clamp(v, 0, 100);
