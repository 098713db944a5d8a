'use strict';
(function () {
  const hwt = window.hwt;
  hwt.renderBatch = function () {};
})();
