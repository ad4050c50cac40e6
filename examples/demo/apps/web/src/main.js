import { Slider } from "@demo/ui";
console.log(Slider(42));
