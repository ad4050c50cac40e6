export const web = "web";
