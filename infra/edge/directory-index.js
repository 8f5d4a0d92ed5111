// Viewer-request CloudFront Function (cloudfront-js-2.0) on the web pages' default behavior.
// S3 behind Origin Access Control has no index documents: `/admin/` and `/admin` must
// become `/admin/index.html` (the distribution's default root object covers only `/`).
async function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri.endsWith('/')) {
    request.uri = uri + 'index.html';
  } else if (uri.lastIndexOf('.') <= uri.lastIndexOf('/')) {
    request.uri = uri + '/index.html';
  }
  return request;
}
