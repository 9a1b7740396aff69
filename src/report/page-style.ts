/**
 * The look shared by the run report and the history page. Laid out for a 1,400 px window: tables
 * wrap their cells instead of widening the page, and long text breaks anywhere.
 */
export const PAGE_STYLE = `
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header,main{max-width:1360px;margin:0 auto;padding:12px 20px}
h1{margin:8px 0}h2{border-bottom:1px solid #d5d9e0;padding-bottom:4px;margin-top:28px}
nav.sticky{position:sticky;top:0;z-index:10;background:#1d2330;color:#e6e8ec;padding:6px 20px;display:flex;gap:14px;flex-wrap:wrap;align-items:center}
nav.sticky a{color:#cfe0ff}nav.sticky .verdict-short{font-weight:700}nav.sticky .verdict-short.ok{color:#8fe0a4}nav.sticky .verdict-short.bad{color:#ffb3b3}
.verdict{font-size:18px;font-weight:600;padding:8px 12px;border-radius:6px;display:inline-block}
.verdict.ok{background:#dff3e4;color:#17612b}.verdict.bad{background:#fbe2e2;color:#8a1c1c}
dl.run{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 12px}dl.run dt{font-weight:600}dl.run dd{margin:0;overflow-wrap:anywhere}
.cards{display:flex;gap:12px;flex-wrap:wrap}.card{background:#fff;border:1px solid #d5d9e0;border-radius:6px;padding:8px 14px;min-width:220px}
.card h3{margin:4px 0}.levels{color:#555;font-size:12px}
.badge{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;font-weight:600;background:#e3e6eb;color:#1d2330}
.badge.PASS{background:#dff3e4;color:#17612b}.badge.FAIL{background:#fbe2e2;color:#8a1c1c}.badge.ERROR{background:#fde9cf;color:#7a4a00}
.badge.SKIP{background:#e8eaf0;color:#4a5163}.badge.WAIVED{background:#e7e0f7;color:#4b2f87}.badge.EXPECTED{background:#dcecf7;color:#1d4f73}.badge.INTERRUPTED{background:#f3ecd2;color:#5e4b00}
.cite.note{color:#2d5a3d}
.filters{display:flex;gap:14px;flex-wrap:wrap;align-items:center;margin:8px 0}
table{border-collapse:collapse;width:100%;background:#fff;table-layout:auto}
th,td{border-bottom:1px solid #e6e8ec;padding:5px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
tr.group-head th{background:#eef0f4}td.id{font-family:ui-monospace,monospace;overflow-wrap:anywhere;min-width:16em}
table.rules td.cite-cell{max-width:44em}
.cite{font-size:12px;color:#4a5163}.cite .where{color:#777}.why{font-size:12px;color:#777}
a.self{color:#aaa;text-decoration:none}
article.failure,article.breach{background:#fff;border:1px solid #e2c4c4;border-radius:6px;padding:8px 16px;margin:12px 0}
article.failure dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:4px 12px}article.failure dt{font-weight:600}article.failure dd{margin:0}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f3f4f6;padding:6px 8px;border-radius:4px;margin:2px 0}
code.replay{background:#1d2330;color:#e6e8ec;padding:3px 6px;border-radius:4px;display:inline-block;overflow-wrap:anywhere}
details.exchange summary{cursor:pointer;font-family:ui-monospace,monospace;font-size:12px;overflow-wrap:anywhere}
details.body summary{cursor:pointer;font-size:12px;color:#4a5163}
.hidden{display:none}
table.skip-reasons td.count{text-align:right;font-weight:600;width:4em}
ul.bad{margin:6px 0 0;padding-left:16px;font-size:12px}ul.bad a{text-decoration:none}
table.load td.num,table.load th.num{text-align:right;white-space:nowrap}
.charts{display:flex;flex-wrap:wrap;gap:12px;margin:10px 0}
figure.chart{width:min-content;margin:0;background:#fff;border:1px solid #d5d9e0;border-radius:6px;padding:6px}
figure.chart figcaption{font-weight:600;font-size:13px;margin-bottom:4px}
.scenario-charts h3{margin:18px 0 4px}
.nothing{color:#17612b;font-weight:600}
.strip{display:flex;gap:2px}.strip span{display:inline-block;width:14px;height:14px;border-radius:3px}
.strip .PASS{background:#3fa35b}.strip .FAIL{background:#d23c3c}.strip .ERROR{background:#e59a2b}.strip .SKIP{background:#b9bfcc}.strip .EXPECTED{background:#5d9ad0}.strip .WAIVED{background:#8b6fd0}.strip .INTERRUPTED{background:#c9b458}.strip .none{background:transparent;border:1px dashed #c5c9d2}
`;
