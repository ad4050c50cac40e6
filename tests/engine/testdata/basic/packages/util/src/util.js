export const util = "util";
