export const core = "core";
