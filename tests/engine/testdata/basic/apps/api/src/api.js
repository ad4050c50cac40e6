export const api = "api";
