import { add } from "@demo/utils";
export const handler = () => add(1, 2);
