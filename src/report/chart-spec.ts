import { chartLibrary, inlineJson } from './uplot-assets.ts';
import { escapeMarkup as h } from './xml-escape.ts';

/**
 * One chart as data: the page's script turns each into a uPlot chart. The numbers are the ones the
 * page's tables show, unrounded, and the legend prints them as they are, with their unit.
 */
export interface ChartSpec {
  id: string;
  caption: string;
  x: {
    label: string;
    /** linear: a plain number with its unit; percentile: x = 1/(1 - p/100) on a log axis; time: epoch seconds. */
    kind: 'linear' | 'percentile' | 'time';
    unit?: string;
    /** What the legend shows for each point's x, where the number itself says less (a percentile, a run). */
    pointLabels?: string[];
  };
  /** log: a logarithmic axis, where a threshold far above the figures would flatten them on a linear one. */
  y: { label: string; unit: string; log?: boolean };
  series: Array<{ label: string; color: string; style: 'line' | 'bars' | 'dashed' }>;
  /** data[0] is x; data[i] the i-th series; null is a gap. */
  data: Array<Array<number | null>>;
}

export function chartFigure(spec: ChartSpec): string {
  return `<figure class="chart" data-testid="chart-${h(spec.id)}"><figcaption>${h(spec.caption)}</figcaption><div id="${h(spec.id)}" class="chart-body"></div></figure>`;
}

/** The library, the charts' data and the script that draws them: everything inline, nothing fetched. */
export function chartAssets(specs: ChartSpec[]): { style: string; body: string } {
  if (specs.length === 0) return { style: '', body: '' };
  const lib = chartLibrary();
  return {
    style: lib.style,
    body: `<script type="application/json" id="chart-data">${inlineJson(specs)}</script>
<script>/* uPlot ${h(lib.version)}, MIT licence, https://github.com/leeoniya/uPlot */${lib.script}</script>
<script>${DRAW_CHARTS}</script>`,
  };
}

/** JSON has no NaN: a missing value travels as null, which uPlot draws as a gap. */
export function gap(v: number | undefined): number | null {
  return v === undefined || Number.isNaN(v) ? null : v;
}

const DRAW_CHARTS = `
(function(){
  var specs=JSON.parse(document.getElementById('chart-data').textContent);
  var drawn=window.stackproofCharts={};
  function num(v){return v==null||v!==v?'—':String(v);}
  function pct(x){var p=100-100/x;return (Math.round(p*10000)/10000)+'%';}
  specs.forEach(function(s){
    var el=document.getElementById(s.id); if(!el) return;
    var xs={label:s.x.label,value:function(u,v,si,i){
      if(i!=null&&s.x.pointLabels&&s.x.pointLabels[i]!=null) return s.x.pointLabels[i];
      if(v==null) return '—';
      if(s.x.kind==='percentile') return pct(v);
      if(s.x.kind==='time') return new Date(v*1000).toISOString().replace('T',' ').slice(0,16)+' UTC';
      return num(v)+(s.x.unit?' '+s.x.unit:'');
    }};
    var series=[xs].concat(s.series.map(function(d){
      var o={label:d.label+' ('+s.y.unit+')',stroke:d.color,width:d.style==='bars'?1:2,value:function(u,v){return v==null?'—':num(v)+' '+s.y.unit;},spanGaps:false,points:{show:true,size:4}};
      if(d.style==='dashed') o.dash=[6,4];
      if(d.style==='bars'){o.fill=d.color+'55';o.paths=uPlot.paths.bars({size:[0.7,40]});o.points={show:false};}
      return o;
    }));
    var xAxis={label:s.x.label+(s.x.unit&&s.x.kind==='linear'?' ('+s.x.unit+')':''),labelSize:20};
    if(s.x.kind==='percentile'){
      xAxis.splits=function(u){var out=[],max=u.scales.x.max;for(var v=1;v<=max*1.0001;v*=10)out.push(v);return out;};
      xAxis.values=function(u,splits){return splits.map(function(v){return v==null?'':pct(v);});};
    }
    if(s.x.kind==='linear'){xAxis.incrs=[1,2,5,10,15,30,60,120,300,600,1800,3600];xAxis.values=function(u,splits){return splits.map(function(v){return v==null?'':String(+v.toFixed(3));});};}
    var yAxis={label:s.y.label+' ('+s.y.unit+')',labelSize:20,size:64};
    var xScale=s.x.kind==='percentile'?{time:false,distr:3,log:10}:s.x.kind==='time'?{time:true}:{time:false,range:function(u,min,max){return [min-0.5,max+0.5];}};
    var yScale=s.y.log?{distr:3,log:10}:{};
    var opts={width:Math.floor(Math.min(430,Math.max(300,el.parentElement.parentElement.clientWidth/3-36))),height:230,series:series,axes:[xAxis,yAxis],
      scales:{x:xScale,y:yScale},legend:{live:true},cursor:{points:{size:6}}};
    drawn[s.id]=new uPlot(opts,s.data,el);
  });
})();
`;
