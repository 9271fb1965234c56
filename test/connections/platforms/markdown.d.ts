// Vite's ?raw imports: a file's text, bundled into the test.
declare module "*.md?raw" {
  const text: string;
  export default text;
}
