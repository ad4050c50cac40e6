export default [{ files: ["**/*.ts"], rules: {} }];
