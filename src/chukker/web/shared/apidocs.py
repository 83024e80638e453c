"""The API's documentation, offline (Swagger UI and ReDoc from the package): served on
both planes."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    Response,
)

router = APIRouter(include_in_schema=False)



# ------------------------------------------------------------ API documentation, offline
#: Swagger UI and ReDoc files shipped by the ``fastapi-offline`` package (no CDN)
API_DOC_FILES = {"swagger-ui-bundle.js": "text/javascript", "swagger-ui.css": "text/css",
                 "redoc.standalone.js": "text/javascript", "favicon.png": "image/png"}


def _api_doc_dir() -> Path:
    import fastapi_offline  # a dependency (pyproject.toml): its absence is a broken install

    return Path(fastapi_offline.__file__).parent / "static"


@router.get("/apidocs/{name}")
async def api_doc_file(name: str) -> Response:
    folder = _api_doc_dir()
    if name not in API_DOC_FILES or not (folder / name).is_file():
        return Response("not found", status_code=404, media_type="text/plain")
    return FileResponse(folder / name, media_type=API_DOC_FILES[name],
                        headers={"cache-control": "public, max-age=86400"})


@router.get("/docs", response_class=HTMLResponse)
async def swagger_ui(request: Request) -> Response:
    return get_swagger_ui_html(openapi_url="/openapi.json", title="chukker live API",
                               swagger_js_url="/apidocs/swagger-ui-bundle.js",
                               swagger_css_url="/apidocs/swagger-ui.css",
                               swagger_favicon_url="/apidocs/favicon.png")


@router.get("/redoc", response_class=HTMLResponse)
async def redoc(request: Request) -> Response:
    return get_redoc_html(openapi_url="/openapi.json", title="chukker live API",
                          redoc_js_url="/apidocs/redoc.standalone.js",
                          redoc_favicon_url="/apidocs/favicon.png", with_google_fonts=False)
