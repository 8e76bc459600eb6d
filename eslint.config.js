// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", "coverage/", "vendor/"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Template literals of numbers and booleans read well in messages.
      "@typescript-eslint/restrict-template-expressions": [
        "error",
        { allowNumber: true, allowBoolean: true },
      ],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "@typescript-eslint/no-non-null-assertion": "error",
      eqeqeq: ["error", "always"],
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "date-fns",
              message: "Import date-fns/<function>: the index loads all 300 of its modules.",
            },
          ],
        },
      ],
    },
  },
  {
    // Day arithmetic lives in one module, through date-fns (the design card's choice).
    files: ["src/**/*.ts"],
    ignores: ["src/time/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "CallExpression[callee.property.name='slice'][callee.object.callee.property.name='toISOString'][arguments.1.value=10]",
          message: "The UTC day of an instant is utcDayOf (src/time/calendar.ts).",
        },
        {
          selector: "MemberExpression[object.name='Date'][property.name='UTC']",
          message: "Day arithmetic goes through src/time/calendar.ts.",
        },
      ],
    },
  },
  {
    // Matchers such as expect.any() are typed any, and tests pass methods to expect() unbound.
    files: ["test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/unbound-method": "off",
    },
  },
  {
    files: ["**/*.js"],
    ...tseslint.configs.disableTypeChecked,
  },
);
