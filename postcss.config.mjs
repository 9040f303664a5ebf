// Tailwind CSS v4 through its PostCSS plugin (Next compiles app/globals.css with it).
export default { plugins: { "@tailwindcss/postcss": {} } };
