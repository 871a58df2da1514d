# The UNO side of documents.OfficePool: connects to one LibreOffice
# listener (soffice --accept=pipe,...) and converts documents to PDF for
# the Go process that started it.
#
# Arguments: the listener's pipe name, seconds to wait for it to accept.
# Standard input: one request per line, "<source path>\t<PDF path>" (a
# conversion), "ping" (is LibreOffice answering?) or "quit" (stop
# LibreOffice, then this). Standard output: one answer per conversion or
# ping, "ok" or "error <text>", after a first line "ready" once connected. On a broken connection it answers "error" and exits 3,
# so the Go side restarts the listener.
import sys
import time

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException

# The PDF export filter of each kind of document.
FILTERS = (
    ("com.sun.star.text.TextDocument", "writer_pdf_Export"),
    ("com.sun.star.sheet.SpreadsheetDocument", "calc_pdf_Export"),
    ("com.sun.star.presentation.PresentationDocument", "impress_pdf_Export"),
    ("com.sun.star.drawing.DrawingDocument", "draw_pdf_Export"),
)


def prop(name, value):
    p = PropertyValue()
    p.Name, p.Value = name, value
    return p


def answer(text):
    sys.stdout.write(text.replace("\n", " ") + "\n")
    sys.stdout.flush()


def connect(pipe, wait):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.monotonic() + wait
    while True:
        try:
            return resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe)
        except NoConnectException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def convert(desktop, src, dst):
    # Hidden, read-only, no macros (NEVER_EXECUTE), no links fetched
    # (NO_UPDATE): a template is the customer's, not trusted code.
    doc = desktop.loadComponentFromURL(
        uno.systemPathToFileUrl(src), "_blank", 0,
        (prop("Hidden", True), prop("ReadOnly", True), prop("MacroExecutionMode", 0), prop("UpdateDocMode", 0)))
    if doc is None:
        raise ValueError("source file could not be loaded")
    try:
        name = next((f for service, f in FILTERS if doc.supportsService(service)), "writer_pdf_Export")
        doc.storeToURL(uno.systemPathToFileUrl(dst), (prop("FilterName", name), prop("Overwrite", True)))
    finally:
        try:
            doc.close(True)
        except Exception:
            doc.dispose()


def main():
    try:
        ctx = connect(sys.argv[1], float(sys.argv[2]))
        desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    except Exception as e:
        answer("error cannot connect to LibreOffice: %s" % e)
        sys.exit(2)
    answer("ready")
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        line = line.rstrip("\n")
        if line == "quit":
            try:
                desktop.terminate()
            except Exception:
                pass
            return
        try:
            if line == "ping":
                desktop.getComponents()
            else:
                src, dst = line.split("\t")
                convert(desktop, src, dst)
            answer("ok")
        except Exception as e:
            text = getattr(e, "Message", "") or str(e) or type(e).__name__
            try:
                desktop.getComponents()  # the document's fault, or LibreOffice's?
            except Exception:
                answer("error LibreOffice stopped answering: %s" % text)
                sys.exit(3)
            answer("error %s" % text)


main()
