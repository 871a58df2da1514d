// Renders DOCX templates with docxtemplater (angular parser, paragraphLoop)
// for documents/compat_test.go. Reads {"data": ..., "templates": {name:
// base64 DOCX}} on stdin; writes {name: {"docx": base64} | {"error": text}}
// to the file named by its argument (docxtemplater logs to stdout).
// NODE_PATH names the node_modules holding docxtemplater, pizzip and
// angular-expressions (.ci/run installs them).
const PizZip = require("pizzip");
const Docxtemplater = require("docxtemplater");
const expressionParser = require("docxtemplater/expressions.js");

let input = "";
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", () => {
  const { data, templates } = JSON.parse(input);
  const out = {};
  for (const [name, b64] of Object.entries(templates)) {
    try {
      const doc = new Docxtemplater(new PizZip(Buffer.from(b64, "base64")), {
        paragraphLoop: true,
        linebreaks: true,
        parser: expressionParser,
        nullGetter: () => "", // as the anchor renders a missing value
      });
      doc.render(data);
      out[name] = { docx: doc.getZip().generate({ type: "nodebuffer" }).toString("base64") };
    } catch (e) {
      out[name] = { error: String(e && e.message) + " " + JSON.stringify((e.properties && e.properties.errors || []).map((x) => x.properties && x.properties.explanation)) };
    }
  }
  require("fs").writeFileSync(process.argv[2], JSON.stringify(out));
});
