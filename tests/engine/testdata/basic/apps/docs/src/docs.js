export const docs = "docs";
