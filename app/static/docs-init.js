// Starts Swagger UI on /docs. A file, not an inline script, so the page's CSP can allow
// 'self' scripts only (app/apidocs.py). The options are FastAPI's defaults, less the online
// validator badge, which would ask validator.swagger.io about this server's document.
"use strict";
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  layout: "BaseLayout",
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
});
