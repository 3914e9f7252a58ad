// The dashboard's exports: the charts as PNG, the data as CSV, the incident summary, and the
// headless screenshot of `--screenshot`/`--report`. Widgets are grabbed here, on the GUI thread;
// files are encoded and written on the worker. Split from main_window.cpp, which keeps to the
// window's layout and snapshot handling.

#include <QCoreApplication>
#include <QImage>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>

#include "ui/key_table_view.h"
#include "ui/main_window.h"
#include "ui/qt_text.h"

namespace limitscope::ui {

void MainWindow::showWritten(const Status& result, const QString& done) {
  if (result.ok()) {
    statusBar()->showMessage(done, 5000);
    return;
  }
  statusBar()->showMessage(qs(result.error()), 5000);
  m_statusError->setText(qs(result.error()));
}

void MainWindow::exportPng(const QString& path) {
  // Widgets are grabbed on the GUI thread; encoding and writing the file happen on the worker.
  const QImage image = m_chartsPanel->grab().toImage();
  QMetaObject::invokeMethod(m_worker, [w = m_worker, image, path] {
    if (w) w->savePng(image, path);
  });
}

void MainWindow::exportIncidentSummary(const QString& md_path) {
  // The picture is grabbed here (widgets live on this thread); the files are written on the worker.
  const QImage image = grab().toImage();
  QMetaObject::invokeMethod(m_worker, [w = m_worker, s = m_shown, image, md_path] {
    if (w) w->saveReport(s, image, md_path);
  });
}

void MainWindow::exportCsv(const QString& path) {
  QMetaObject::invokeMethod(m_worker, [w = m_worker, path] {
    if (w) w->exportCsv(path);
  });
}

void MainWindow::screenshotAfter(double seconds, const QString& path) {
  setSimulationRunning(false);  // a picture of a fixed moment: stop real-time ticks
  const auto save = [this, path] {
    // Chart legends and layouts settle in posted events: let them run before the picture.
    for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
    m_screenshotPath = path;
    const QImage image = grab().toImage();
    QMetaObject::invokeMethod(m_worker, [w = m_worker, image, path] {
      if (w) w->savePng(image, path);
    });
  };
  auto conn = std::make_shared<QMetaObject::Connection>();
  *conn = connect(m_worker.data(), &SourceWorker::fastForwarded, this, [this, conn, save] {
    disconnect(*conn);
    onTick();  // the fast-forward's snapshot was queued just before this signal
    if (!m_keyView->selectionModel()->hasSelection() && m_keyProxy->rowCount() > 0) {
      // Show the details pane in use: select the most depleted key, then wait for the
      // snapshot that carries its recent decisions.
      *conn = connect(this, &MainWindow::snapshotApplied, this, [this, conn, save] {
        if (!m_shown || m_shown->view.selected_keys.empty()) return;
        disconnect(*conn);
        save();
      });
      m_keyView->selectRow(0);
      return;
    }
    save();
  });
  fastForward(seconds);
}

}  // namespace limitscope::ui
